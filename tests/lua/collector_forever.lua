-- tests/lua/collector_forever.lua: allocates until it is killed.
local keep = {}
local i = 0
while true do
  i = i + 1
  local t = {}
  for k = 1, 50 do t[k] = tostring(i + k) end
  keep[i % 100 + 1] = t
end
