-- same_line.lua: several allocation sites on one line, in a compiled loop.
-- On line 9 the JIT writes tostring(i) straight into the concatenation's
-- buffer: that string is never made.
-- sunk: 9
local n = tonumber(arg and arg[1]) or 30000
local ring = {}
for i = 1, n do
  local a, b, c = { i }, "s" .. i, { x = i, y = i }
  ring[i % 128 + 1] = { a, b, c, { tostring(i) .. "!" } }
end
print(#ring)
