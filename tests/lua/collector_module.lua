-- tests/lua/collector_module.lua: the module API: start, status, stop, errors.
jit.off()
local c = require "ljleak.collector"
local function say(...) io.write(table.concat({...}, " "), "\n") end
local keep = {}
say("idle", tostring(c.status().active))
say("started", tostring(c.start{dir = "cap"}), tostring(c.status().active))
for i = 1, 1000 do keep[i] = {} end
local ok, err = c.start{dir = "cap2"}
say("again", tostring(ok), err)
local stopped = c.stop()
say("stopped", tostring(stopped), tostring(c.status().active), tostring(c.status().segments))
local ok2, err2 = c.stop()
say("stop again", tostring(ok2), err2)
