-- service.lua, version 2: version 1 plus an audit log that is never trimmed.
-- truth: the audit record kept at line 14 is a new leak against version 1.
local cache, cache_n = {}, 0
local audit = {}
local n = tonumber(arg and arg[1]) or 160000
local function handle(i)
  local key = "user:" .. (i % 3000)
  local entry = cache[key]
  if not entry then
    entry = { key = key, hits = 0 }
    cache[key] = entry; cache_n = cache_n + 1
  end
  entry.hits = entry.hits + 1
  if i % 7 == 0 then audit[#audit + 1] = { id = i, key = key } end; local note = #audit
  local reply = { status = 200, body = key, note = note }
  return reply.status
end
for i = 1, n do handle(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
