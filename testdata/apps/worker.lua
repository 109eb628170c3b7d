-- testdata/apps/worker.lua: a long-running worker that leaks one closure per
-- job among churn; the process that the ci/capture test captures by signal.
-- usage: luajit -l ljleak.collector worker.lua [SECONDS]
local ffi = require "ffi"
ffi.cdef "int usleep(unsigned int usec);"
local seconds = tonumber(arg and arg[1]) or 120
local deadline = os.time() + seconds
local done = {}      -- completion callbacks, never cleared: the leak
local recent = {}    -- the last 100 results: bounded
local jobs = 0
while os.time() < deadline do
  for _ = 1, 20 do
    jobs = jobs + 1
    local result = { id = jobs, text = "job " .. jobs .. " ok" }
    recent[jobs % 100] = result
    local id = jobs
    done[#done + 1] = function() return id end  -- the leak
  end
  ffi.C.usleep(1000)
end
io.write("worker: ", jobs, " jobs\n")
