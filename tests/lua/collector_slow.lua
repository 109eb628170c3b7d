-- tests/lua/collector_slow.lua: allocates a little for about half a second, keeping most of it.
local keep = {}
local start = os.clock()
local i = 0
while os.clock() - start < 0.5 do
  i = i + 1
  keep[i % 5000 + 1] = { i }
  for _ = 1, 200 do local x = i * 2 end
end
print("slow workload done")
