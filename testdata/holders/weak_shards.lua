-- testdata/holders/weak_shards.lua: a weak-keyed cache whose keys no one table holds
-- (tests/e2e/holders.sh): each session goes into one of eight shard lists of the global
-- `shards`, and its data into `session_data`, keyed weakly by the session. No list holds most
-- of the keys, but `shards` holds them all: one leak, one suspect, the data under it.
-- Lines marked "-- leak: PATH" leak, held by PATH.
-- usage: ljleak run weak_shards.lua [ROUNDS]
local rounds = tonumber(arg and arg[1]) or 40

shards = {}
for s = 1, 8 do shards[s] = {} end
session_data = setmetatable({}, { __mode = "k" })

for round = 1, rounds do
  for k = 1, 40 do
    local n = (round - 1) * 40 + k
    local session = { n } -- leak: _G.shards[*][*]
    local shard = shards[n % 8 + 1]
    shard[#shard + 1] = session
    session_data[session] = { n, n } -- leak: _G.session_data[*] (lives while its key lives; the key is held by _G.shards[*][*])
  end
  collectgarbage()
end
