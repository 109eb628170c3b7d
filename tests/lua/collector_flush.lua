-- tests/lua/collector_flush.lua: trace numbers are reused after jit.flush(): two loops, one trace number.
local keep = {}
for i = 1, 2000 do keep[i % 100 + 1] = { i } end
jit.flush()
for i = 1, 2000 do keep[i % 100 + 1] = { i, i } end
print("flush workload done")
