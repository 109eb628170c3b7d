-- tests/lua/collector_signal.lua: toggles the capture with SIGUSR2 sent to itself.
local ffi = require "ffi"
ffi.cdef[[int kill(int pid, int sig); int getpid(void);]]
local c = require "ljleak.collector"
-- With the GC stopped, no GC phase change sends the hook to its slow path.
if os.getenv("LJLEAK_TEST_GC_STOPPED") then collectgarbage("stop") end
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
