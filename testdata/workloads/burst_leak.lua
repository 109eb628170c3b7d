-- burst_leak.lua: 2,000 FFI buffers kept in about 20 ms (a count, so the same work on a busy
-- machine), with the GC paced so that the program completes no cycle of its own in that time.
-- truth: the buffers made at line 12 and kept at line 13, in the loop of
-- line 11. With no option a run this short is undecided (never a pass);
-- with boundaries by work (--every) it is flagged.
local ffi = require("ffi")
collectgarbage("setpause", 10000)
collectgarbage()
local count = tonumber(arg and arg[1]) or 2000
local keep = {}
for _ = 1, count do
  local buf = ffi.new("uint8_t[256]")
  keep[#keep + 1] = buf
  local t = os.clock()
  while os.clock() - t < 1e-5 do end
end
