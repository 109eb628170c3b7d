-- app.lua: a request handler that keeps every session (the leak the report shows).
local sessions = {}
local lru = {}
local lru_size = 0

local function remember(key, value)
  if lru_size > 128 then
    lru = {}
    lru_size = 0
  end
  lru[key] = value
  lru_size = lru_size + 1
end

local function handle(request)
  sessions[#sessions + 1] = { id = request.id, user = request.user }
  remember(request.path, request.body)
  return #sessions
end

for i = 1, 100000 do
  handle({ id = i, user = "u" .. i % 50, path = "/p" .. i % 300, body = "x" })
end
