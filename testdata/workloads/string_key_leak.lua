-- string_key_leak.lua: a "seen" set keyed by a per-request string that is never
-- pruned: the interned key strings and the growing hash part leak.
-- truth: leak of the key built at line 9 and stored at line 10.
local seen = {}
local n = tonumber(arg and arg[1]) or 160000
local function request(i)
  local body = string.format("%d:%d", i % 97, i % 13)
  if i % 4 == 0 then
    local key = "session-" .. i .. "-" .. body
    seen[key] = true
  end
  return #body
end
for i = 1, n do request(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
