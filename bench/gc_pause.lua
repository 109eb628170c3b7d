-- bench/gc_pause.lua: the pause of a full GC cycle per 100 MB of live heap, as the
-- collector's forced cycles (edge_gc, --every, collector.boundary()) take it.
-- usage: luajit bench/gc_pause.lua MB            (collectgarbage("collect"))
--        ljleak run -o DIR bench/gc_pause.lua MB (collector.boundary(), the hook recording)
local mb = tonumber(arg[1]) or 100
local ok, collector = pcall(require, "ljleak.collector")
local capturing = ok and collector.status().active
local collect = capturing and function() assert(collector.boundary()) end
  or function() collectgarbage("collect") end

-- A live heap of small tables and strings, as a server's caches hold.
local keep, i = {}, 0
while collectgarbage("count") < mb * 1024 do
  i = i + 1
  keep[i] = { i, tostring(i), { x = i } }
end
collectgarbage("collect")
local live = collectgarbage("count") / 1024
local times = {}
for r = 1, 5 do
  local t = os.clock()
  collect()
  times[r] = os.clock() - t
end
table.sort(times)
print(string.format("%s: live %.0f MB: full cycle %.0f ms (median of 5), %.0f ms per 100 MB",
  capturing and "forced by the collector, capturing" or "collectgarbage, no capture",
  live, times[3] * 1000, times[3] * 1000 * 100 / live))
