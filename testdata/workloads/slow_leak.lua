-- slow_leak.lua: heavy churn (tables and strings per request, all garbage) with
-- one record retained per 1000 requests.
-- truth: leak of the record made and kept at line 12; lines 7-10 are churn.
local retained = {}
local n = tonumber(arg and arg[1]) or 160000
local function request(i)
  local t = { i, i * 2, i * 3, i * 4 }
  local s = "req-" .. (i % 5000)
  local u = { name = s, n = #t }
  local parts = { s, s, s }
  if i % 1000 == 0 then
    retained[#retained + 1] = { id = i, tag = s, pad = { 1, 2, 3, 4, 5, 6, 7, 8 } }
  end
  return u.n + #parts
end
-- An argument like "60s" runs for that many seconds instead of n requests.
local seconds = tonumber(tostring(arg and arg[1]):match("^(%d+)s$"))
local deadline, i = seconds and os.time() + seconds, 0
while deadline or i < n do
  i = i + 1; request(i); last_label = "req-" .. i
  if i % 10000 == 0 then collectgarbage(); if deadline and os.time() >= deadline then break end end
end
