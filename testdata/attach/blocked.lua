-- testdata/attach/blocked.lua: a LuaJIT program blocked in C (sleep(arg[1] or 3) through the FFI), which
-- runs no Lua code until it wakes: ljleak attach finds no safe point in it.
local ffi = require "ffi"
ffi.cdef "unsigned int sleep(unsigned int seconds);"
ffi.C.sleep(tonumber(arg[1] or 3))
print("woke")
