-- bench/overhead.lua: allocation-heavy JIT-on workload for the collector overhead benchmark:
-- tables, strings and closures made in hot loops, most of them garbage at once.
local rounds = tonumber(arg and arg[1]) or 60
local keep = {}
local sum = 0
for round = 1, rounds do
  for i = 1, 50000 do
    local t = { i, i * 2, name = "item" .. i }
    local f = function() return t[1] + round end
    sum = sum + f() + #t.name
    if i % 1000 == 0 then keep[(i / 1000) % 64 + 1] = t end
  end
  local parts = {}
  for i = 1, 5000 do parts[i] = tostring(i + round) end
  keep[65] = table.concat(parts, " ")
end
io.write(string.format("%d\n", sum % 1000003))
