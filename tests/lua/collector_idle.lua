-- tests/lua/collector_idle.lua: allocates one table every 0.1 s for about 3 s, blocked in
-- usleep between (through the FFI): its stream reaches the collector's timer tick only every
-- few minutes, and a --duration once ended at its exit.
local ffi = require "ffi"
ffi.cdef "int usleep(unsigned int usec);"
local keep = {}
for i = 1, 30 do
  keep[#keep + 1] = { i }
  ffi.C.usleep(100000)
end
print("idle workload done", #keep)
