-- closure_leak.lua: every 8th request registers a callback closure (capturing
-- the request's state) in a listener list that nobody ever clears.
-- truth: the closure and its upvalue table are made at line 10 and kept at line 11.
local listeners = {}
local n = tonumber(arg and arg[1]) or 160000
local function request(i)
  local tmp = { i, i + 1, i + 2 }
  local sum = tmp[1] + tmp[2] + tmp[3]
  if i % 8 == 0 then
    local state = { id = i }; local cb = function() return state.id + sum end
    listeners[#listeners + 1] = cb
  end
  return sum
end
for i = 1, n do request(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
