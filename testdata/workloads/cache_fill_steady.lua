-- cache_fill_steady.lua: a memo table over a bounded key space (30000 keys):
-- it fills during the first three boundaries of the run and then stays the
-- same size while lookups go on.
-- truth: steady (rises, then flat: a warm cache is not a leak).
local memo = {}
local n = tonumber(arg and arg[1]) or 160000
local function lookup(i)
  local key = i % 30000
  local v = memo[key]
  if not v then v = { key = key, text = string.rep("v", 100) }; memo[key] = v end
  local tmp = { key, key * 2 }
  return v.key + tmp[2]
end
for i = 1, n do lookup(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
