-- tests/lua/collector_report.lua: ends a test workload: with LJLEAK_TEST_ALLOCATED_FILE set,
-- stops the capture and writes how many bytes went through the allocator.
local path = os.getenv("LJLEAK_TEST_ALLOCATED_FILE")
if path then
  local c = require "ljleak.collector"
  assert(c.stop())
  local f = assert(io.open(path, "w"))
  f:write(string.format("%.0f\n", c.status().allocated))
  f:close()
end
