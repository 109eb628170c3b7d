-- testdata/values/tokens.lua: a session store that never forgets (tests/e2e/values.sh): every
-- login stores its session token as a key of a global table, and nothing removes it. The
-- tokens are what ljleak shows only with --values: each starts with a marker the test looks
-- for ("tok-SECRET-"), holds an escape sequence and a bell that must reach a terminal escaped
-- (ESC [ 3 1 m, BEL), and is longer than a preview, so it is shown cut.
-- usage: ljleak run --values tokens.lua [ROUNDS]
local rounds = tonumber(arg and arg[1]) or 60

sessions = {} -- the growing table: its keys are the tokens

local n = 0
local function login()
  n = n + 1
  sessions["tok-SECRET-" .. string.format("%06d", n) .. "-\27[31mred\7-" .. string.rep("z", 40)] = true
end

for round = 1, rounds do
  for k = 1, 50 do
    login()
    local churn = {} -- steady work beside the leak
    for i = 1, 40 do churn[i] = i end
  end
  collectgarbage()
end
