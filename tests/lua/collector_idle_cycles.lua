-- tests/lua/collector_idle_cycles.lua: N full GC cycles (default 40) that free nothing:
-- everything allocated is kept, and each cycle runs whole inside collectgarbage().
local n = tonumber(arg[1]) or 40
local keep = {}
for i = 1, n do
  local batch = {}
  for j = 1, 100 do batch[j] = { j } end
  keep[i] = batch
  local t = os.clock()
  while os.clock() - t < 0.003 do end  -- longer than the capture's period
  collectgarbage()
end
print(#keep, "idle cycles done")
