-- strings.lua: string functions in a compiled loop: char, format, sub,
-- upper, rep, tostring; the results are kept in a ring of 128. Every
-- string a line makes is new (the 26 of string.char stay alive in the
-- ring): an equal string that died a moment ago would be made again or
-- revived depending on where the string table's sweep stands, which the
-- string hash's per-process random seed decides.
local n = tonumber(arg and arg[1]) or 30000
local ring = {}
for i = 1, n do
  local c = string.char(65 + i % 26, 97 + i % 26)
  local f = string.format("%05d/%s", i, c)
  local s = f:sub(2)
  local u = s:upper()
  local r = string.rep(u, 2)
  local t = tostring(i * 3)
  ring[i % 128 + 1] = { f, u, t, c, r }
end
print(#ring)
