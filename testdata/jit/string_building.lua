-- string_building.lua: a string-building loop: pieces appended to a list
-- and joined every 100 pieces, as a serializer writes its output.
local n = tonumber(arg and arg[1]) or 40000
local out = {}
local buf = {}
for i = 1, n do
  buf[#buf + 1] = "<item id=\"" .. i .. "\">" .. (i * 3) .. "</item>"
  if #buf == 100 then
    out[#out % 16 + 1] = table.concat(buf)
    buf = {}
  end
end
print(#out)
