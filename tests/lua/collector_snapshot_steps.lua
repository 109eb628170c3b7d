-- tests/lua/collector_snapshot_steps.lua: a live heap of MB MB (default 80), then garbage until
-- a snapshot of the middle of the run (ljleak run --snapshots N) is taken on it. Its full cycle
-- runs in steps, with a count hook of the collector's (debug.gethook() says "external hook"),
-- the program running between them. MODE says what the program does meanwhile:
--   steps     nothing else: it runs while the cycle does, and the snapshot comes;
--   own_hook  it has a count hook of its own from the start: the cycle runs in one go, and
--             the hook stays the program's and keeps being called;
--   set_hook  it sets a hook of its own while the cycle runs: the steps end without a snapshot,
--             the hook stays the program's;
--   stop_gc   it stops its GC while the cycle runs: the steps end, the GC stays stopped until
--             the program restarts it;
--   compiled  a loop with no call in it but every 256 rounds, which runs compiled with the JIT
--             on, until three snapshots are taken (ljleak run --snapshots 8).
-- usage: ljleak run --snapshots 3 collector_snapshot_steps.lua MODE [MB]
local mode, mb = arg[1] or "steps", tonumber(arg[2]) or 80
local collector = require "ljleak.collector"
assert(collector.status().active, "run it under ljleak run")

local calls = 0
local function own() calls = calls + 1 end
if mode == "own_hook" then debug.sethook(own, "", 1000) end

local keep, n = {}, 0
while collectgarbage("count") < mb * 1024 do
  n = n + 1
  keep[n] = { n, tostring(n) }
end
collectgarbage()

local ring, i = {}, 0
local function churn()
  i = i + 1
  ring[i % 4096 + 1] = { i }
end
local function ours() return debug.gethook() == "external hook" end

-- Garbage until the next snapshot: how many rounds ran under the collector's hook.
local function until_snapshot(limit)
  local start, stepped = collector.status().snapshots, 0
  for round = 1, limit do
    churn()
    if ours() then stepped = stepped + 1 end
    if round % 256 == 0 and collector.status().snapshots > start then return stepped end
  end
  error("no snapshot after " .. limit .. " rounds")
end

-- Garbage until the collector's hook is set: a snapshot's cycle runs in steps.
local function until_steps(limit)
  for _ = 1, limit do
    churn()
    if ours() then return end
  end
  error("no snapshot's cycle in steps after " .. limit .. " rounds")
end

local limit = 200000000
if mode == "steps" then
  local stepped = until_snapshot(limit)
  assert(stepped > 0, "the program ran no round while the snapshot's cycle ran")
  assert(debug.gethook() == nil, "the collector's hook stayed after the snapshot")
elseif mode == "own_hook" then
  until_snapshot(limit)
  assert(debug.gethook() == own, "the program's hook was not given back")
  local before = calls
  local function spin() for _ = 1, 100000 do churn() end end
  jit.off(spin)   -- compiled code calls no hook
  jit.off(churn)
  spin()
  assert(calls > before, "the program's hook is no longer called")
elseif mode == "set_hook" then
  until_steps(limit)
  local snapshots = collector.status().snapshots
  debug.sethook(own, "", 100)
  local function spin() for _ = 1, 100000 do churn() end end
  jit.off(spin)   -- compiled code calls no hook
  jit.off(churn)
  spin()
  assert(debug.gethook() == own, "the program's hook was replaced")
  assert(calls > 0, "the program's hook is not called")
  assert(collector.status().active, "the capture stopped")
  assert(collector.status().snapshots == snapshots, "a snapshot was taken with the program's hook set")
  debug.sethook()
elseif mode == "stop_gc" then
  until_steps(limit)
  collectgarbage("stop")
  local before = collectgarbage("count")
  local held = {}
  for k = 1, 200000 do held[k] = { k } end   -- about 10 MB that no cycle frees while stopped
  for _ = 1, 100000 do churn() end
  assert(collectgarbage("count") - before > 5 * 1024, "the GC ran while the program had stopped it")
  assert(not ours(), "the collector's hook stayed after the program stopped its GC")
  held = nil
  collectgarbage("restart")
  collectgarbage()
  assert(collectgarbage("count") < before + 5 * 1024, "the GC does not run again after a restart")
elseif mode == "compiled" then
  local function spin(target)
    local round = 0
    while true do
      round = round + 1
      ring[round % 4096 + 1] = { round }
      if round % 256 == 0 and collector.status().snapshots >= target then return end
    end
  end
  for _ = 1, 3 do spin(collector.status().snapshots + 1) end
else
  error("no mode " .. mode)
end
assert(#keep == n)
print(mode, "ok")
