-- testdata/suspects/sampler.lua: one leak beside a buffer that is flushed (tests/e2e/suspects.sh).
-- A metrics module keeps each request's sample in a window that it hands on and empties when
-- full, and keeps the sample of a slow request (one in eight) in a list of slow requests too,
-- which nothing empties. The samples are made at one line: at a heap snapshot the window may
-- hold most of them, but the list that grows is metrics.slow.
-- usage: ljleak run sampler.lua [REQUESTS]
local requests = tonumber(arg and arg[1]) or 300000

local metrics = { window = {}, slow = {}, handed_on = 0 }
package.loaded.metrics = metrics -- a module, so the path names it
local capacity = math.floor(requests / 3.5)

local function hand_on(window)
  metrics.handed_on = metrics.handed_on + #window
end

local function record(i)
  local sample = { at = i, route = "/api/v1/items/" .. i % 211, ms = (i * 7) % 40 } -- the samples
  local window = metrics.window
  window[#window + 1] = sample
  if sample.ms >= 35 then
    metrics.slow[#metrics.slow + 1] = sample -- the slow list's array part grows here
  end
  if #window >= capacity then
    hand_on(window)
    metrics.window = {} -- flushed: the old window and the samples only it held go
  end
end

for i = 1, requests do record(i) end
io.write("sampler: ", requests, " requests, ", metrics.handed_on, " handed on, ", #metrics.slow, " slow\n")
