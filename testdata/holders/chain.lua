-- testdata/holders/chain.lua: a linked list that grows by a node at a time to N nodes (default
-- 1,000,000), held by the global `chain` (tests/e2e/holders.sh, bench/holders-chain.sh): every
-- node is made at one line, so that site grows and its holder path is the chain's, one step
-- deeper for each node. The holder analysis must stay linear in the nodes.
-- usage: ljleak run chain.lua [N [ROUNDS]]
local n = tonumber(arg and arg[1]) or 1000000
local rounds = tonumber(arg and arg[2]) or 20
local per = math.ceil(n / rounds)
local made = 0
for round = 1, rounds do
  for i = 1, math.min(per, n - made) do
    chain = { next = chain } -- the chain's node: made here
  end
  made = math.min(n, made + per)
  collectgarbage()
end
