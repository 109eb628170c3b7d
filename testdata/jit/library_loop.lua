-- library_loop.lua: the program's loop builds a new string each turn
-- (line 14) and hands it to a cache from another file (lru_helpers.lua),
-- which only reads it. The JIT's first trace is the cache's own loop, in
-- the library; the traces that grow from its exits (one where get finds
-- nothing, one where set starts a new table or not) start in the library
-- too and run on into the program's loop, where they build the next
-- turn's string. It is charged to line 14, as with -j off; the cache's
-- tables stay on its lines.
local dir = (arg and arg[0] or ""):match("^(.*/)") or ""
local lru = dofile(dir .. "lru_helpers.lua")
local cache = lru.new(4)
local n = tonumber(arg and arg[1]) or 20000
for i = 1, n do
  local key = "k" .. i
  if not cache:get(key) then
    cache:set(key, i)
  end
end
print(n)
