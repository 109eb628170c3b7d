-- tests/lua/collector_force_gc.lua: force_gc through the module gives the program's
-- stepmul back when it stops, and leaves a stopped collector stopped.
local c = require "ljleak.collector"
local function say(...) io.write(table.concat({...}, " "), "\n") end
local keep = {}
collectgarbage("setstepmul", 300)
assert(c.start{dir = "forced", max_bytes = 4096, force_gc = true})
for i = 1, 20000 do keep[i % 100 + 1] = { i } end
say("forced segments", tostring(c.status().segments >= 5))
c.stop()
say("stepmul", collectgarbage("setstepmul", 300))
collectgarbage("stop")
assert(c.start{dir = "stopped", max_bytes = 4096, force_gc = true})
local before = collectgarbage("count")
for i = 1, 20000 do keep[i % 100 + 1] = { i } end
say("stopped grew", tostring(collectgarbage("count") > before + 500), "segments", c.status().segments)
c.stop()
collectgarbage("restart")
say("stepmul", collectgarbage("setstepmul", 300))
