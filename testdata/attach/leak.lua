-- testdata/attach/leak.lua: a plain LuaJIT program for ljleak attach: it allocates in a loop
-- (JIT on), keeps one table a round (line 6), and pauses in a system call each round.
local ffi = require "ffi"
ffi.cdef "int usleep(unsigned int usec);"
local kept = {}
local function keep(i) kept[#kept + 1] = {i, string.rep("x", 100) .. i, {}} end
local rounds = tonumber(arg[1] or 5000)
for i = 1, rounds do
  keep(i)
  local scratch = {i, i + 1}
  scratch[3] = #scratch
  ffi.C.usleep(2000)
end
print("done", #kept)
