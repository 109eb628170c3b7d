-- tests/lua/collector_signal.lua: toggles the capture with SIGUSR2 sent to itself.
local ffi = require "ffi"
ffi.cdef[[int kill(int pid, int sig); int getpid(void);]]
local c = require "ljleak.collector"
local function churn() local t = {} for i = 1, 1000 do t[i] = {} end return t end
local function say(...) io.write(table.concat({...}, " "), "\n") end
churn()
say("active", c.status().dir, tostring(c.status().active))
ffi.C.kill(ffi.C.getpid(), 12)
churn()
say("after signal", tostring(c.status().active))
ffi.C.kill(ffi.C.getpid(), 12)
churn()
say("after second signal", tostring(c.status().active))
