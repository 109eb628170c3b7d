-- coroutine.lua: a compiled loop inside a coroutine that allocates and
-- yields every 1000 iterations to its consumer.
local n = tonumber(arg and arg[1]) or 40000
local producer = coroutine.wrap(function()
  local batch = {}
  for i = 1, n do
    batch[i % 1000 + 1] = { id = i, name = "item" .. i }
    if i % 1000 == 0 then coroutine.yield(batch) end
  end
  return nil
end)
local seen = 0
while true do
  local b = producer()
  if not b then break end
  seen = seen + #b
end
print(seen)
