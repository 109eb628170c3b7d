-- bench/live_heap.lua: what bench/gc_pause.lua and bench/snapshot_pause.lua share, loaded
-- with dofile: a live heap of small tables and strings (as a server's caches hold) of
-- about mb MB, and the median CPU time (os.clock) of five calls.
local live_heap = {}

-- Builds the heap and keeps it in the table returned, with the entries made and the
-- live MB after a full cycle.
function live_heap.build(mb)
  local keep, i = {}, 0
  while collectgarbage("count") < mb * 1024 do
    i = i + 1
    keep[i] = { i, tostring(i), { x = i } }
  end
  collectgarbage("collect")
  return keep, i, collectgarbage("count") / 1024
end

function live_heap.median(f)
  local times = {}
  for r = 1, 5 do
    local t = os.clock()
    f()
    times[r] = os.clock() - t
  end
  table.sort(times)
  return times[3]
end

return live_heap
