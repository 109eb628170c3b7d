-- concat.lua: concatenation in a compiled loop: of numbers and strings, a
-- chain of five pieces, and table.concat of a short list.
local n = tonumber(arg and arg[1]) or 30000
local ring = {}
local parts = { "a", "b", "c" }
for i = 1, n do
  local key = "key:" .. i
  local line = key .. "=" .. (i * 7) .. ";" .. (i % 13)
  parts[4] = key
  local joined = table.concat(parts, ",")
  ring[i % 128 + 1] = line .. joined
end
print(#ring)
