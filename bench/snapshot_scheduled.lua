-- bench/snapshot_scheduled.lua: the longest stop a program sees while a scheduled heap snapshot
-- is taken (ljleak run --snapshots N: a candidate after the bytes allocated double, its full
-- cycle in steps, the walk where it ends), per 100 MB of live heap, beside a full GC cycle of
-- the same heap (bench/live_heap.lua's heap). Wall time (CLOCK_MONOTONIC): the program loops
-- on small garbage and notes the longest time between two of its rounds, while snapshots are
-- taken and, for comparison, in a stretch of as many rounds without one.
-- usage: ljleak run [-j off] --snapshots 8 -o DIR bench/snapshot_scheduled.lua MB
local mb = tonumber(arg[1]) or 100
local collector = require "ljleak.collector"
assert(collector.status().active, "run it under ljleak run")
local ffi = require "ffi"
ffi.cdef [[
struct bench_timespec { long sec, nsec; };
int clock_gettime(int clock, struct bench_timespec *ts);
]]
local ts = ffi.new("struct bench_timespec")
local function now()
  ffi.C.clock_gettime(1, ts)   -- CLOCK_MONOTONIC
  return tonumber(ts.sec) + tonumber(ts.nsec) * 1e-9
end

local live_heap = dofile((arg[0]:match("^(.*)/") or ".") .. "/live_heap.lua")
local keep, kept, live = live_heap.build(mb)
local gcs = {}
for r = 1, 5 do
  local t = now()
  collectgarbage("collect")
  gcs[r] = now() - t
end
table.sort(gcs)
local gc = gcs[3]

-- Rounds of garbage (a ring of small tables) until the snapshots taken reach target, or for
-- rounds rounds when target is nil: the longest time between two rounds, and the rounds run.
local ring = {}
local function churn(target, rounds)
  local longest, last, i = 0, now(), 0
  while true do
    i = i + 1
    ring[i % 4096 + 1] = { i }
    local t = now()
    if t - last > longest then longest = t - last end
    last = t
    if target then
      if i % 256 == 0 and collector.status().snapshots >= target then break end
    elseif i >= rounds then
      break
    end
  end
  return longest, i
end

local snapshots = 3
local worst, quiet, rounds = {}, {}, 0
for s = 1, snapshots do
  local longest, n = churn(collector.status().snapshots + 1)
  worst[s] = longest
  rounds = math.max(rounds, n)
end
for s = 1, snapshots do
  quiet[s] = churn(nil, rounds)
end
table.sort(worst)
table.sort(quiet)
local per100 = 100 / live
print(string.format("live %.0f MB, %d entries kept: full GC %.0f ms per 100 MB (median of 5); "
  .. "longest stop while a scheduled snapshot is taken %.0f ms per 100 MB (median of %d), "
  .. "in as many rounds without one %.1f ms", live, kept, gc * 1000 * per100, worst[2] * 1000 * per100,
  snapshots, quiet[2] * 1000))
print(string.format("scheduled snapshot pause %.0f ms per 100 MB of live heap: %.2fx the full GC cycle "
  .. "of the same heap (target <= 1x)", worst[2] * 1000 * per100, worst[2] / gc))
assert(#keep == kept)
