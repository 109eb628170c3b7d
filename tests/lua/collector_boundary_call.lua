-- collector.boundary() after each of five batches: one boundary per call,
-- the count it returns growing (the program's own cycles count too).
local c = require "ljleak.collector"
assert(c.start{dir = "capture", edge_gc = false})
local keep, last = {}, 0
for batch = 1, 5 do
  for i = 1, 2000 do keep[#keep + 1] = { batch, i } end
  local n = assert(c.boundary())
  assert(n > last)
  last = n
end
assert(c.stop())
print(c.status().boundaries == last)
print(c.boundary())
