-- metamethods.lua: metamethods written in Lua that allocate (__index,
-- __call, __concat), run from a compiled loop.
local n = tonumber(arg and arg[1]) or 30000
local lazy = setmetatable({}, { __index = function(t, k) return { k } end })
local maker = setmetatable({}, { __call = function(self, v) return { v, v } end })
local named = setmetatable({ name = "n" }, { __concat = function(a, b) return { a, b } end })
local ring = {}
for i = 1, n do
  local a = lazy[i]
  local b = maker(i)
  local c = named .. i
  ring[i % 128 + 1] = { a, b, c }
end
print(#ring)
