-- testdata/demo/service.lua: a small request-serving loop with one real leak
-- among steady caches; the workload of `make demo`.
-- usage: luajit service.lua [SECONDS [REQUESTS_PER_TICK]]
--
-- Each tick serves a batch of requests and sleeps 2 ms. What it keeps:
--   * an LRU cache of rendered pages, bounded at 256 entries (steady);
--   * an access-log buffer filled and flushed every 400 lines (sawtooth);
--   * per-request scratch tables and strings (churn);
--   * THE LEAK: every keep-alive request registers an "on close" listener
--     with the connection pool and never removes it (`handle`, line 91).
local ffi = require "ffi"
ffi.cdef [[
  int usleep(unsigned int usec);
  struct ljleak_demo_timespec { long tv_sec; long tv_nsec; };
  int clock_gettime(int clock, struct ljleak_demo_timespec *ts);
]]
local now_ts = ffi.new("struct ljleak_demo_timespec")
local function now()  -- monotonic seconds
  ffi.C.clock_gettime(1, now_ts)
  return tonumber(now_ts.tv_sec) + tonumber(now_ts.tv_nsec) * 1e-9
end

local seconds = tonumber(arg and arg[1]) or 20
local per_tick = tonumber(arg and arg[2]) or 10

-- Connection pool events: listeners are kept until someone removes them.
local pool = { listeners = {}, count = 0 }
local function pool_on(event, fn)
  local list = pool.listeners[event]
  if not list then list = {}; pool.listeners[event] = list end
  list[#list + 1] = fn
  pool.count = pool.count + 1
end

-- A least-recently-used cache: a map plus a doubly linked list, bounded.
local lru = { map = {}, size = 0, limit = 256, head = nil, tail = nil }
local function lru_unlink(node)
  if node.prev then node.prev.next = node.next else lru.head = node.next end
  if node.next then node.next.prev = node.prev else lru.tail = node.prev end
  node.prev, node.next = nil, nil
end
local function lru_push(node)
  node.next = lru.head
  if lru.head then lru.head.prev = node end
  lru.head = node
  if not lru.tail then lru.tail = node end
end
local function lru_get(key)
  local node = lru.map[key]
  if node then lru_unlink(node); lru_push(node); return node.value end
end
local function lru_put(key, value)
  local node = { key = key, value = value }
  lru.map[key] = node
  lru_push(node)
  lru.size = lru.size + 1
  if lru.size > lru.limit then
    local old = lru.tail
    lru_unlink(old)
    lru.map[old.key] = nil
    lru.size = lru.size - 1
  end
end

-- The access log: lines are buffered and written out in batches.
local log_lines, log_count, log_written = {}, 0, 0
local function log(line)
  log_count = log_count + 1
  log_lines[log_count] = line
  if log_count >= 400 then
    log_written = log_written + #table.concat(log_lines, "\n")
    log_lines, log_count = {}, 0
  end
end

local function render(path)
  return string.rep("<p>" .. path .. "</p>", 4)
end

local function handle(id)
  local request = { id = id, path = "/item/" .. (id * 7919 % 1500), method = "GET" }
  local page = lru_get(request.path)
  if not page then
    page = render(request.path)
    lru_put(request.path, page)
  end
  local status = id % 50 == 0 and 404 or 200
  log(request.method .. " " .. request.path .. " " .. status .. " " .. #page)
  if id % 8 == 0 then  -- a keep-alive connection: tidy up when it closes
    local conn = id
    pool_on("close", function() return conn end)  -- the leak: never removed
  end
  local headers = { ["content-length"] = #page, ["x-request-id"] = tostring(id) }
  return status, headers
end

local started = now()
local deadline = started + seconds
local id = 0
repeat
  for _ = 1, per_tick do
    id = id + 1
    handle(id)
  end
  ffi.C.usleep(2000)
until now() >= deadline
io.write(string.format("service: %d requests in %.1f s, %d listeners, %d log bytes, %d cached pages\n",
  id, now() - started, pool.count, log_written, lru.size))
