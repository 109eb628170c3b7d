-- churn_steady.lua: pure churn: every request makes tables, strings and a
-- closure that all become garbage at once.
-- truth: steady (nothing grows).
local n = tonumber(arg and arg[1]) or 160000
local function request(i)
  local t = { i, i + 1, i + 2, i + 3 }
  local s = "payload-" .. (i % 1000) .. "-" .. (i % 7)
  local f = function() return t[1] + #s end
  return f()
end
local total = 0
for i = 1, n do total = total + request(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
