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
for i = 1, n do request(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
