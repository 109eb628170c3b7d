-- About 20 ms of keeping FFI buffers, one every 10 us, with no GC cycle of
-- the program's own during them: the pause set high, and one collection
-- first to apply it.
local ffi = require "ffi"
collectgarbage("setpause", 10000)
collectgarbage()
local keep, t0 = {}, os.clock()
while os.clock() - t0 < 0.02 do
  keep[#keep + 1] = ffi.new("char[?]", 256)
  local t = os.clock()
  while os.clock() - t < 1e-5 do end
end
