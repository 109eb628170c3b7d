-- coroutine_leak.lua: every 20th request starts a worker coroutine that waits for
-- a reply that never comes; the scheduler keeps it forever.
-- truth: leak of the coroutine made at line 9, parked at line 11.
local parked = {}
local n = tonumber(arg and arg[1]) or 160000
local function request(i)
  local t = { i }
  if i % 20 == 0 then
    local co = coroutine.create(function(x) local reply = coroutine.yield(x) return reply end)
    coroutine.resume(co, i)
    parked[#parked + 1] = co
  end
  return t[1]
end
for i = 1, n do request(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
