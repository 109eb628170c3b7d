-- tests/lua/collector_trace_reattach.lua: the program's own "record" handler takes the collector's place during the first capture and goes; the second capture attaches the collector's again, and its trace gets its line.
local collector = require "ljleak.collector"
local keep = {}
local function fill(n, first)
  for i = 1, n do
    if first then keep[i % 64 + 1] = {}
    else keep[i % 64 + 1] = {} end
  end
end
assert(collector.start { dir = "one" })
fill(57, true)
local handler = function() end
jit.attach(handler, "record")
jit.flush()
fill(20000, false)
jit.attach(handler)
assert(collector.stop())
jit.flush()
assert(collector.start { dir = "two" })
fill(20000, true)
assert(collector.stop())
