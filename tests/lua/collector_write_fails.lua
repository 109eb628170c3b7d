-- tests/lua/collector_write_fails.lua: batches of tables kept, a boundary after each and a heap
-- snapshot after every sixth, until a write of the capture fails (the test's LD_PRELOAD shim)
-- and it stops; then prints the batch, the events the capture counted and its error.
-- usage: ljleak run --snapshots none collector_write_fails.lua
local c = require "ljleak.collector"
assert(c.status().active, "run it under ljleak run")
local keep = {}
for batch = 1, 40 do
  for i = 1, 5000 do keep[#keep + 1] = { batch, tostring(i) } end
  local ok, err
  if batch % 6 == 0 then ok, err = c.snapshot() else ok, err = c.boundary() end
  if not ok then
    local st = c.status()
    print(batch, st.events, tostring(st.active), err)
    return
  end
end
print("no write failed")
