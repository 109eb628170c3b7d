-- bench/gc_pause.lua: the pause of a full GC cycle per 100 MB of live heap, as the
-- collector's forced cycles (edge_gc, --every, collector.boundary()) take it.
-- usage: luajit bench/gc_pause.lua MB            (collectgarbage("collect"))
--        ljleak run -o DIR bench/gc_pause.lua MB (collector.boundary(), the hook recording)
local mb = tonumber(arg[1]) or 100
local ok, collector = pcall(require, "ljleak.collector")
local capturing = ok and collector.status().active
local collect = capturing and function() assert(collector.boundary()) end
  or function() collectgarbage("collect") end

local live_heap = dofile((arg[0]:match("^(.*)/") or ".") .. "/live_heap.lua")
local keep, _, live = live_heap.build(mb)
local pause = live_heap.median(collect)
print(string.format("%s: live %.0f MB: full cycle %.0f ms (median of 5), %.0f ms per 100 MB",
  capturing and "forced by the collector, capturing" or "collectgarbage, no capture",
  live, pause * 1000, pause * 1000 * 100 / live))
-- The heap stays referenced to here, so every measurement above ran on it live.
assert(#keep > 0)
