-- tests/lua/collector_trace_status.lua: status() counts the allocations of compiled code and those charged to their line.
local c = require "ljleak.collector"
assert(c.start{dir = "cap"})
local keep = {}
for i = 1, 20000 do keep[i % 64 + 1] = { i } end
local s = c.status()
io.write("counted ", tostring(s.trace_allocations >= 19000), " lines ",
         tostring(s.trace_lines == s.trace_allocations), "\n")
assert(c.stop())
