-- string_cache_steady.lua: a cache keyed by per-request strings, cleared
-- when it holds a fifth of the run's requests: the strings die with it, so
-- the VM's string table (INTERNAL) doubles as the cache fills and halves
-- after each clear. No collectgarbage() of its own.
-- truth: steady (the cache and the string table both fall back).
local n = tonumber(arg and arg[1]) or 160000
local capacity = math.floor(n / 5)
local cache, count, cleared = {}, 0, 0
local function request(i)
  local key = "session:" .. i .. ":" .. (i * 7919 % 100003)
  cache[key] = i
  count = count + 1
  if count >= capacity then cache, count, cleared = {}, 0, cleared + 1 end
end
for i = 1, n do request(i) end
io.write("string_cache: ", n, " requests, cleared ", cleared, " times\n")
