-- Allocates about 40 MB with the GC paced to run few cycles of its own, so
-- that --every's forced cycles are the boundaries that count.
collectgarbage("setpause", 1000)
local keep = {}
for i = 1, 400000 do
  keep[i % 20000 + 1] = { i, i + 1, i + 2, i + 3 }
end
