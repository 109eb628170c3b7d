-- side_traces.lua: branches taken at different rates, each allocating
-- something else: the loop's trace and its side traces allocate.
local n = tonumber(arg and arg[1]) or 60000
local ring = {}
for i = 1, n do
  local v
  if i % 3 == 0 then
    v = { i, "three" }
  elseif i % 5 == 0 then
    v = "five:" .. i
  elseif i % 7 == 0 then
    v = { seven = i }
  else
    v = { i }
  end
  ring[i % 512 + 1] = v
end
print(#ring)
