-- cache_fill_steady.lua: a memo table over a bounded key space (a tenth of
-- the requests: 16000 keys by default): it fills during the first tenth of
-- the run, whatever its length, and then stays the same size while lookups
-- go on.
-- truth: steady (rises, then flat: a warm cache is not a leak).
local memo = {}
local n = tonumber(arg and arg[1]) or 160000
local keys = math.floor(n / 10)
local function lookup(i)
  local key = i % keys
  local v = memo[key]
  if not v then v = { key = key, text = string.rep("v", 100) }; memo[key] = v end
  local tmp = { key, key * 2 }
  return v.key + tmp[2]
end
for i = 1, n do lookup(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
