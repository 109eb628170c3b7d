-- testdata/holders/weak_slots.lua: weak tables whose slots grow with another table's leak
-- (tests/e2e/holders.sh). Handles are kept by mistake in a global list; an index of them by
-- id, weak-valued, and a set of them, weak-keyed, let go of an entry only once its handle
-- goes: their slots grow as long as the list keeps the handles, one leak with the list's.
-- usage: ljleak run weak_slots.lua [ROUNDS]
local rounds = tonumber(arg and arg[1]) or 40

handles = {}
local by_id = setmetatable({}, { __mode = "v" })
local seen = setmetatable({}, { __mode = "k" })

for round = 1, rounds do
  for k = 1, 250 do
    local n = (round - 1) * 250 + k
    local handle = { n, "handle" }
    handles[#handles + 1] = handle
    by_id[n * 3 + 1] = handle
    seen[handle] = true
  end
  collectgarbage()
end
