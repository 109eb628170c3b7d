-- testdata/holders/weak_keys.lua: weak-keyed caches (tests/e2e/holders.sh). A session's data
-- lives while its session (the key) lives, and a second, strong table keeps every session: the
-- holder says so and names the key's holder. A value that refers to its own key keeps it: no
-- ephemerons in LuaJIT, a cycle never collected. A weak-valued cache beside them never holds.
-- Lines marked "-- leak: PATH" leak, held by PATH.
-- usage: ljleak run weak_keys.lua [ROUNDS]
local rounds = tonumber(arg and arg[1]) or 40

sessions = {}
session_data = setmetatable({}, { __mode = "k" })
owned = setmetatable({}, { __mode = "k" })
recent = setmetatable({}, { __mode = "v" })

for round = 1, rounds do
  for k = 1, 25 do
    local n = (round - 1) * 25 + k
    local session = { n }
    sessions[#sessions + 1] = session
    session_data[session] = { n, n } -- leak: _G.session_data[*] (lives while its key lives; the key is held by _G.sessions[*])
    recent[n] = session_data[session]
    local token = { n, n, n }
    owned[token] = { owner = token } -- leak: _G.owned[*] (lives while its key lives, and the key is held only through this value: a cycle that weak keys never collect in LuaJIT)
  end
  collectgarbage()
end
