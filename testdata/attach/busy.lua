-- testdata/attach/busy.lua: a LuaJIT program busy in Lua for arg[1] seconds that makes a system
-- call (a write to /dev/null) every 1000 rounds: ljleak attach stops it at one of them.
local f = assert(io.open("/dev/null", "w"))
local kept, deadline, i = {}, os.time() + tonumber(arg[1] or 10), 0
while os.time() < deadline do
  i = i + 1
  local t = {i, i + 1}
  if i % 1000 == 0 then kept[#kept + 1] = t; f:write("x"); f:flush() end
end
print("done", #kept > 0)
