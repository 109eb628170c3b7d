-- testdata/stacks/sunk_two_callers.lua: one helper, make, whose table (line
-- 9) the JIT sinks; it escapes only when a caller keeps it, so compiled code
-- makes it at the trace's exit, and then in the side trace grown there, at
-- its start. Two callers: keep (line 12) keeps every 7th, churn (line 17)
-- every 5th, each called from its own line of the loop (24, 25). arg[1]:
-- rounds (3000).
local kept = {}
local function make(i)
  return { i, i * 2 }
end
local function keep(i)
  local t = make(i)
  if i % 7 == 0 then kept[#kept + 1] = t end
  return t[1]
end
local function churn(i)
  local t = make(i)
  if i % 5 == 0 then last = t end
  return t[2]
end
local rounds = tonumber(arg and arg[1]) or 3000
local sum = 0
for i = 1, rounds do
  sum = sum + keep(i)
  sum = sum + churn(i)
end
