-- bench/attach_gap.lua: a loop that allocates and sleeps 1 ms a round for arg[1] seconds and
-- prints the longest gap between two rounds, in milliseconds: the pause an attach stops it for.
-- usage: luajit attach_gap.lua SECONDS [HEAP_MB READY_FILE]
local ffi = require "ffi"
ffi.cdef [[
typedef struct { long sec, nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec *t);
int usleep(unsigned int usec);
]]
local t = ffi.new("bench_timespec")
local function now()
  ffi.C.clock_gettime(1, t)   -- CLOCK_MONOTONIC
  return tonumber(t.sec) + tonumber(t.nsec) / 1e9
end
-- arg[2]: MB of live heap (1 KB strings) held while it runs, built first; then arg[3] is made.
local heap = {}
for i = 1, tonumber(arg[2] or 0) * 1024 do
  heap[i] = string.rep("x", 1000) .. i
end
if arg[3] then
  io.open(arg[3], "w"):close()
end
local ring, last = {}, now()
local deadline, longest = last + tonumber(arg[1] or 3), 0
while last < deadline do
  ring[#ring % 1000 + 1] = {last}
  ffi.C.usleep(1000)
  local n = now()
  if n - last > longest then longest = n - last end
  last = n
end
print(string.format("%.0f", longest * 1000))
