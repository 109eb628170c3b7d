-- testdata/suspects/bus.lua: one leak that makes many growing sites (tests/e2e/suspects.sh):
-- an event bus whose per-request handlers are registered with on() and never removed with
-- off(). Each request makes a handler closure (and its upvalue), a request table, its headers
-- table and id strings; the bus's list of handlers grows and is never emptied.
-- usage: ljleak run bus.lua [ROUNDS]
local rounds = tonumber(arg and arg[1]) or 60

local bus = { handlers = {} } -- the list: made here
function bus.on(f)
  bus.handlers[#bus.handlers + 1] = f -- the list's array part grows here
end
function bus.off(f)
  for i = #bus.handlers, 1, -1 do
    if bus.handlers[i] == f then table.remove(bus.handlers, i) end
  end
end
events = bus -- a global, so the path names it

local n = 0
local function handle()
  n = n + 1
  local id = "req-" .. n .. "-" .. string.rep("x", 24) -- the id string
  local request = { id = id, seq = n } -- the request table
  request.headers = { ["x-request-id"] = id, host = "example.org" } -- its headers
  local function handler(event) -- the handler closure, and its upvalue request
    return request.id, event
  end
  bus.on(handler)
  -- the request is done: bus.off(handler) is missing, so the handler stays
end

for round = 1, rounds do
  for k = 1, 50 do
    handle()
    local churn = {} -- steady work, so that a snapshot is due in the middle of the run
    for i = 1, 40 do churn[i] = i end
  end
  collectgarbage()
end
