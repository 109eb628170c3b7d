-- service_steady.lua: a JSON API service on real Debian Lua libraries
-- (lua-cjson, lua-lpeg). It warms up once, then serves its requests
-- steadily: an LPeg grammar parses each request line, cjson decodes its
-- body and encodes its reply, a router answers from a product catalogue
-- built at start (8000 SKUs: its string keys make the VM's string table
-- double as it is built), a reply cache fills over the first 8000 requests
-- (one reply per SKU, whatever the run's length: its hash part doubles as
-- it fills, then holds), and an access log keeps the last 256 lines (a
-- ring, full after the first 256 requests).
-- No collectgarbage() of its own: its boundaries are the program's own cycles.
-- truth: steady (one warm-up step, then flat: not a leak).
local cjson = require("cjson")
local lpeg = require("lpeg")
local n = tonumber(arg and arg[1]) or 160000

-- The request line's grammar, built once.
local P, C, R, S, Ct = lpeg.P, lpeg.C, lpeg.R, lpeg.S, lpeg.Ct
local word = C((R("az", "AZ", "09") + S("_-."))^1)
local method = C(P("GET") + P("POST") + P("PUT"))
local path = Ct((P("/") * word)^1)
local query = (P("?") * C((1 - P(" "))^0))^-1
local request_line = method * P(" ") * path * query * P(" HTTP/1.1")

-- The catalogue: 8000 products keyed by SKU strings, made at start.
local catalogue = {}
for i = 1, 8000 do
  local sku = string.format("sku-%05d-%s", i, string.rep(string.char(97 + i % 26), 8))
  catalogue[sku] = {sku = sku, name = "product " .. i, price = i * 3 % 997, tags = {"t" .. i % 17}}
end
local skus = {}
for sku in pairs(catalogue) do skus[#skus + 1] = sku end
table.sort(skus)

-- Replies cached by route and SKU: one per SKU, filled in the first 8000 requests.
local cache, cached = {}, 0
local log, log_at = {}, 0

local function handle(i)
  local sku = skus[i % #skus + 1]
  local line = (i % 5 == 0 and "POST" or "GET") .. " /api/v1/items/" .. sku .. "?trace=" .. (i % 1000) ..
                   " HTTP/1.1"
  local verb, parts, q = request_line:match(line)
  if not verb then return 400 end
  local body = cjson.decode('{"id":' .. i .. ',"qty":' .. (i % 9 + 1) .. ',"note":"r' .. i .. '"}')
  local key = verb .. ":" .. parts[4]
  local reply = cache[key]
  if not reply then
    local item = catalogue[parts[4]]
    reply = cjson.encode({sku = item.sku, name = item.name, price = item.price, tags = item.tags})
    cache[key] = reply
    cached = cached + 1
  end
  local out = cjson.encode({status = 200, qty = body.qty, query = q, item = reply})
  log_at = log_at % 256 + 1
  log[log_at] = verb .. " " .. parts[4] .. " " .. #out
  return 200
end

local served = 0
for i = 1, n do
  if handle(i) == 200 then served = served + 1 end
end
io.write("service: ", served, " of ", n, " requests served, ", cached, " replies cached\n")
