-- side_return.lua: a side trace that starts inside a function inlined into
-- the loop (a branch taken every 10th call) and returns into the loop, where
-- it allocates again: lines of both functions, from a side trace. The JIT
-- sinks the temporary of line 9.
-- sunk: 9
local n = tonumber(arg and arg[1]) or 60000
local registry = {}
local function request(i)
  local tmp = { i }
  if i % 10 == 0 then
    registry[i % 256 + 1] = { id = i, name = "r" .. i }
  end
  return tmp[1]
end
local labels = {}
for i = 1, n do
  request(i)
  labels[i % 64 + 1] = "req-" .. i
end
print(#registry, #labels)
