-- testdata/holders/main_local.lua: a list held by a local of the main chunk (tests/e2e/holders.sh):
-- gone at the exit boundary, so only a snapshot in the middle of the run sees its holder.
local pool = { listeners = {} }
for round = 1, 40 do
  for k = 1, 50 do
    pool.listeners[#pool.listeners + 1] = { round, k } -- leak
    local churn = {} -- work, so that a snapshot is due in the middle of the run
    for i = 1, 100 do churn[i] = i end
  end
  collectgarbage()
end
