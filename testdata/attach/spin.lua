-- testdata/attach/spin.lua: a LuaJIT program that makes no system call for arg[1] seconds (a
-- loop on os.time, which the vDSO answers): ljleak attach never finds it at a safe stop.
local deadline, n = os.time() + tonumber(arg[1] or 10), 0
while os.time() < deadline do n = n + 1 end
print("spun", n > 0)
