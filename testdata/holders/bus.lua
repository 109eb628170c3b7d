-- testdata/holders/bus.lua: an event bus module whose handlers are never removed
-- (tests/e2e/holders.sh). The main chunk requires it and keeps it in a local, and at its end a
-- block's local (a dead stack slot at the main chunk's return, fewer steps from the roots)
-- holds the same list; so does one for a global audit trail. The holder is the named path: the
-- module by its require name, the global. Lines marked "-- leak: PATH" leak, held by PATH.
-- usage: ljleak run bus.lua [ROUNDS]
local rounds = tonumber(arg and arg[1]) or 40

package.preload["eventbus"] = function()
  local bus = { handlers = { shutdown = {}, reload = {} } }
  function bus.on(event, handler)
    local list = bus.handlers[event]
    list[#list + 1] = handler
  end
  return bus
end

local bus = require "eventbus"
AUDIT_TRAIL = {}
local seen = 0

for round = 1, rounds do
  for k = 1, 25 do
    local id = (round - 1) * 25 + k
    bus.on("shutdown", function() seen = seen + id end) -- leak: eventbus.handlers.shutdown[*]
    AUDIT_TRAIL[#AUDIT_TRAIL + 1] = { "shutdown handler", id } -- leak: _G.AUDIT_TRAIL[*]
  end
  collectgarbage()
end

do  -- block locals: their slots are temporaries once the block ends, still holding the lists
  local list = bus.handlers.shutdown
  local trail = AUDIT_TRAIL
  seen = seen + #list + #trail
end
