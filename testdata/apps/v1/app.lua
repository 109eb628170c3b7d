-- testdata/apps/v1/app.lua: version 1 of a small job-processing service, the
-- base build of the compare-builds test. Steady: it keeps a bounded cache and
-- a batch buffer, and replaces its shutdown hook on every 4th job.
-- usage: luajit app.lua [SECONDS [JOBS_PER_TICK]]
local ffi = require "ffi"
ffi.cdef [[
  int usleep(unsigned int usec);
  struct app_timespec { long tv_sec; long tv_nsec; };
  int clock_gettime(int clock, struct app_timespec *ts);
]]
local now_ts = ffi.new("struct app_timespec")
local function now()
  ffi.C.clock_gettime(1, now_ts)
  return tonumber(now_ts.tv_sec) + tonumber(now_ts.tv_nsec) * 1e-9
end

local seconds = tonumber(arg and arg[1]) or 10
local per_tick = tonumber(arg and arg[2]) or 10

local cache, cache_keys, cache_next = {}, {}, 1   -- a ring of 200 results
local batch, batch_n, flushed = {}, 0, 0
local on_shutdown = nil

local function process(id)
  local job = { id = id, kind = "resize", name = "img-" .. (id % 640) .. ".png" }
  local result = cache[job.name]
  if not result then
    result = string.rep(job.kind .. ":" .. job.name .. ";", 3)
    local old = cache_keys[cache_next]
    if old then cache[old] = nil end
    cache[job.name], cache_keys[cache_next] = result, job.name
    cache_next = cache_next % 200 + 1
  end
  batch_n = batch_n + 1
  batch[batch_n] = job.name .. "=" .. #result
  if batch_n == 300 then
    flushed = flushed + #table.concat(batch, ",")
    batch, batch_n = {}, 0
  end
  local done = id
  if id % 4 == 0 then on_shutdown = function() return done end end  -- a hook for every 4th job
  return result
end

local deadline = now() + seconds
local id = 0
repeat
  for _ = 1, per_tick do
    id = id + 1
    process(id)
  end
  ffi.C.usleep(2000)
until now() >= deadline
io.write(string.format("app v1: %d jobs, %d bytes flushed, last hook %d\n", id, flushed, (on_shutdown())))
