-- sampled_slow_leak.lua: a slow leak (one small record kept per 1000
-- requests, about 50 KB in 600,000 requests) amid churn, captured with
-- coarse sampling (--sample 512k): the few hundred bytes a sample stands for
-- are far below one sampling interval, so the capture cannot see the leak.
-- No collectgarbage() of its own.
-- truth: inconclusive under --sample 512k (the report names its floor);
-- the leak of line 13 is found in a full capture and at --sample 64k.
local n = tonumber(arg and arg[1]) or 600000
local kept = {}
local function request(i)
  local parts = { "GET", "/item/" .. i, i }
  if i % 1000 == 0 then
    kept[#kept + 1] = { id = i, when = parts[3] }
  end
  return #parts
end
for i = 1, n do request(i) end
io.write("sampled_slow_leak: ", n, " requests, ", #kept, " records kept\n")
