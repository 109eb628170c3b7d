-- tests/lua/collector_main_locals.lua: what the main chunk's locals hold at
-- its end: churn first, then, last of all, 4000 records (line 8) and one
-- 100 KB string's table (line 9) in locals of the chunk, not upvalues, that
-- nothing else references. Only a boundary taken with the chunk's frame
-- held sees them: a full cycle after the chunk returned frees them.
local churn = 0
for i = 1, 200000 do churn = churn + #{ i } end
local records = {} for i = 1, 4000 do records[i] = { id = i } end
local last = { big = string.rep("x", 100000) }
