-- strings.lua: string functions in a compiled loop: rep, format, sub,
-- upper, tostring, char; the results are kept in a ring of 128.
local n = tonumber(arg and arg[1]) or 30000
local ring = {}
for i = 1, n do
  local r = string.rep("ab", i % 5 + 2)
  local f = string.format("%05d/%s", i, r)
  local s = f:sub(2, -2)
  local u = s:upper()
  local t = tostring(i * 3)
  local c = string.char(65 + i % 26, 97 + i % 26)
  ring[i % 128 + 1] = { f, u, t, c }
end
print(#ring)
