-- testdata/stacks/helper_two_callers.lua: one helper, put, with two callers:
-- leak (line 12) keeps what put makes, steady (line 17) drops it. The
-- allocation is put's table constructor (line 8); its site is the same line
-- for both, only the stack tells the callers apart. arg[1]: rounds (2000).
local kept = {}

local function put(t, i)
  t[#t + 1] = {i}
end

local function leak(i)
  put(kept, i)
end

local function steady(i)
  local scratch = {}
  put(scratch, i)
end

local rounds = tonumber(arg and arg[1]) or 2000
for i = 1, rounds do
  leak(i)
  steady(i)
end
