-- tests/lua/collector_jit.lua: JIT-heavy churn: tables, strings, closures, concatenation in hot loops.
local keep = {}
local function make(i)
  local t = { i, i + 1, name = "n" .. i }
  t.f = function() return t[1] + i end
  return t
end
local sum = 0
for round = 1, 40 do
  local batch = {}
  for i = 1, 2000 do
    local t = make(i)
    batch[#batch + 1] = t
    sum = sum + t.f() + #t.name
  end
  local parts = {}
  for i = 1, 500 do parts[i] = string.format("%d:%d", round, i) end
  keep[round % 8 + 1] = table.concat(parts, ",")
  if round % 10 == 0 then keep[#keep + 1] = batch end
end
assert(sum > 0)
dofile(arg[0]:gsub("[^/]*$", "") .. "collector_report.lua")
print("jit workload done")
