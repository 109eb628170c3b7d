-- tests/lua/collector_trace_sunk_two.lua: two tables the JIT sinks (lines 5 and 6), both made by the exit where they escape (line 8) every 100th iteration.
local keep = {}
local sum = 0
for i = 1, 20000 do
  local p = { x = i, y = i }
  local q = { n = i, m = i }
  sum = sum + p.x + q.n
  if i % 100 == 0 then keep[#keep + 1] = p; keep[#keep + 1] = q end
end
print(sum, #keep)
