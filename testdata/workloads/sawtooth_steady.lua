-- sawtooth_steady.lua: a write buffer that collects records and is flushed
-- (dropped) every 3000 requests: live memory rises and falls, never grows.
-- truth: steady (nothing grows).
local n = tonumber(arg and arg[1]) or 160000
local buffer = {}
local function request(i)
  buffer[#buffer + 1] = { seq = i, line = "event " .. i }
  if #buffer >= 3000 then buffer = {} end
end
for i = 1, n do request(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
