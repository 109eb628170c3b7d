-- service.lua, version 1: a request handler with a bounded per-user cache.
-- truth: steady (diffed against version 2 by tests/e2e/diff-corpus.sh).
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
  local note = #audit -- version 2 keeps an audit record here
  local reply = { status = 200, body = key, note = note }
  return reply.status
end
for i = 1, n do handle(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
