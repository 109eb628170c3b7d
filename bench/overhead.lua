-- bench/overhead.lua: allocation-heavy JIT-on workload for the collector overhead benchmark.
-- A traced loop makes tables and strings; closures (which LuaJIT 2.1 does
-- not compile) are made in a loop of their own; most of it is garbage at once.
local rounds = tonumber(arg and arg[1]) or 60
local keep = {}
local sum = 0

local function records(round)
  for i = 1, 50000 do
    local t = { i, i * 2, name = "item" .. i }
    sum = sum + t[2] + #t.name
    if i % 1000 == 0 then keep[(i / 1000) % 64 + 1] = t end
  end
  local parts = {}
  for i = 1, 5000 do parts[i] = tostring(i + round) end
  keep[65] = table.concat(parts, " ")
end

local function closures(round)
  for i = 1, 10000 do
    local f = function() return i + round end
    sum = sum + f()
  end
end

for round = 1, rounds do
  records(round)
  closures(round)
end
io.write(string.format("%d\n", sum % 1000003))
