-- testdata/attach/host_app.lua: the application of tests/attach_host.c, a C host that calls
-- handle(path) for each HTTP request: /leak keeps one table per request in the module
-- sessions' list (line 10, the one leaking line), /churn builds and drops garbage.
package.loaded.sessions = { open = {} }
local sessions = require "sessions"
local recent, slot = {}, 0

local function leak()
  local n = #sessions.open + 1
  sessions.open[n] = { n = n, token = "session " .. n }
  return "leak " .. n .. "\n"
end

local function churn()
  local parts = {}
  for i = 1, 256 do
    parts[i] = { n = i, text = "item " .. i }
  end
  slot = slot % 64 + 1
  recent[slot] = parts[256].text
  return "churn " .. #parts .. "\n"
end

function handle(path)
  if path == "/leak" then
    return leak()
  end
  return churn()
end
