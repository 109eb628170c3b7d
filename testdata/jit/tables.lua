-- tables.lua: table constructors in a compiled loop: empty, array, hash
-- template, nested; a ring of 256 keeps some alive, the rest is garbage.
local n = tonumber(arg and arg[1]) or 30000
local ring = {}
for i = 1, n do
  local empty = {}
  empty[1] = i
  local arr = { i, i + 1, i + 2 }
  local rec = { x = i, y = -i, tag = "rec" }
  local nested = { arr, { rec } }
  ring[i % 256 + 1] = nested
  ring[i % 256 + 1][3] = empty
end
print(#ring)
