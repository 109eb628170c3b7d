-- sawtooth_steady.lua: a write buffer that collects records and is flushed
-- (dropped) every 3000 requests: live memory rises and falls, never grows.
-- truth: steady (nothing grows).
local n = tonumber(arg and arg[1]) or 160000
local buffer = {}
local function request(i)
  buffer[#buffer + 1] = { seq = i, line = "event " .. i }
  if #buffer >= 3000 then buffer = {} end
end
-- An argument like "60s" runs for that many seconds instead of n requests.
local seconds = tonumber(tostring(arg and arg[1]):match("^(%d+)s$"))
local deadline, i = seconds and os.time() + seconds, 0
while deadline or i < n do
  i = i + 1; request(i); last_label = "req-" .. i
  if i % 10000 == 0 then collectgarbage(); if deadline and os.time() >= deadline then break end end
end
