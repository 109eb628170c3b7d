-- testdata/stacks/metamethod.lua: a table's __index function (line 8) makes
-- a table for each key it is asked for; the loop (line 14) asks through the
-- metamethod, which the JIT inlines into the loop's trace behind a
-- continuation frame. arg[1]: rounds (3000).
local memo = {}
local lookup = setmetatable({}, {
  __index = function(_, k)
    local v = {k}
    memo[k] = v
    return v
  end})
local rounds = tonumber(arg and arg[1]) or 3000
for i = 1, rounds do
  local _ = lookup[i]
end
