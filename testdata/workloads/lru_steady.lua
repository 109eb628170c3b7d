-- lru_steady.lua: a bounded LRU cache of 1000 entries in front of a slow
-- lookup; keys cycle over 5000 values, so entries are evicted all the time.
-- truth: steady (nothing grows).
local capacity, n = 1000, tonumber(arg and arg[1]) or 160000
local map, order, head, count = {}, {}, 1, 0
local function get(key)
  local v = map[key]
  if v then return v end
  v = { key = key, payload = string.rep("x", 40 + #key) }
  map[key] = v
  order[head + count] = key; count = count + 1
  if count > capacity then
    map[order[head]] = nil; order[head] = nil
    head = head + 1; count = count - 1
  end
  return v
end
for i = 1, n do get("k" .. ((i * 7919) % 5000)); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
