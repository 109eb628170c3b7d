-- testdata/holders/container.lua: a container that grows between the snapshot in the middle of
-- the run and the one at its exit (tests/e2e/holders.sh): a global pool's list of listeners.
pool = { listeners = {} } -- the list: made here
for round = 1, 60 do
  for k = 1, 50 do
    pool.listeners[#pool.listeners + 1] = { round, k }
    local churn = {} -- work, so that a snapshot is due in the middle of the run
    for i = 1, 100 do churn[i] = i end
  end
  collectgarbage()
end
