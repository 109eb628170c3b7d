-- bench/snapshot_pause.lua: the pause of a heap snapshot per 100 MB of live heap, beside the
-- full GC cycle's on the same heap (bench/gc_pause.lua's heap: small tables and strings).
-- usage: ljleak run --snapshots none -o DIR bench/snapshot_pause.lua MB
-- collector.snapshot() is a full cycle, its boundary and the walk; collector.boundary() the
-- first two: their difference is what the snapshot adds. CPU time (os.clock), median of 5.
local mb = tonumber(arg[1]) or 100
local collector = require "ljleak.collector"
assert(collector.status().active, "run it under ljleak run")

local live_heap = dofile((arg[0]:match("^(.*)/") or ".") .. "/live_heap.lua")
local keep, i, live = live_heap.build(mb)
local median = live_heap.median
local gc = median(function() collectgarbage("collect") end)
-- One cycle from the pause between two (each run begins there): what collectgarbage("collect")
-- does less its first pass, a sweep of every object that frees nothing from there.
local cycle = median(function() repeat until collectgarbage("step", 2 ^ 21) end)
local boundary = median(function() assert(collector.boundary()) end)
local snapshot = median(function() assert(collector.snapshot()) end)
local walk = snapshot - boundary
print(string.format("live %.0f MB, %d objects kept: full GC %.0f ms per 100 MB; snapshot walk %.0f ms "
  .. "per 100 MB (collector.snapshot() %.0f ms, collector.boundary() %.0f ms, medians of 5)",
  live, i * 4, gc * 1000 * 100 / live, walk * 1000 * 100 / live, snapshot * 1000, boundary * 1000))
-- The pause a program sees is the whole of collector.snapshot(): the forced cycle and the walk in
-- one stop, which the program asked for (a snapshot of the middle of a run runs its cycle in
-- steps: bench/snapshot_scheduled.lua).
print(string.format("collector.snapshot() pause %.0f ms per 100 MB of live heap: %.2fx the full GC cycle of the same heap "
  .. "(the cycle and the walk); the walk alone %.2fx (target <= 1x)", snapshot * 1000 * 100 / live, snapshot / gc,
  walk / gc))
print(string.format("one cycle from the pause %.0f ms per 100 MB: collector.snapshot() %.2fx of it, collector.boundary() %.2fx",
  cycle * 1000 * 100 / live, snapshot / cycle, boundary / cycle))
-- The heap stays referenced to here, so every measurement above ran on it live.
assert(#keep == i)
