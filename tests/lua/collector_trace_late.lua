-- tests/lua/collector_trace_late.lua: the module loaded and a capture started after a loop was compiled: the layout check reads that trace, and a loop compiled since gets its lines.
local keep = {}
for i = 1, 5000 do keep[i % 64 + 1] = { i } end
local c = require "ljleak.collector"
assert(c.start{dir = "cap"})
for i = 1, 5000 do keep[i % 64 + 1] = { i, i } end
local s = c.status()
io.write("lines ", tostring(s.trace_allocations >= 4800 and s.trace_lines == s.trace_allocations), "\n")
assert(c.stop())
