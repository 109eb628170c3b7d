-- testdata/attach/two_states.lua: a LuaJIT program with a second Lua state, made through the FFI
-- and never run; it prints that state's global state (the word at glref, GC64's layout), then
-- allocates in a loop (kept at line 12) with a pause in a system call each round.
local ffi = require "ffi"
ffi.cdef "void *luaL_newstate(void); int usleep(unsigned int usec);"
local other = ffi.C.luaL_newstate()
print(string.format("%#x", tonumber(ffi.cast("uintptr_t", ffi.cast("uint64_t *", other)[2]))))
io.stdout:flush()
local kept = {}
local rounds = tonumber(arg[1] or 5000)
for i = 1, rounds do
  kept[#kept + 1] = {i, string.rep("y", 100) .. i}
  ffi.C.usleep(2000)
end
print("done", #kept)
