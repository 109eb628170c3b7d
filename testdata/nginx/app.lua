-- testdata/nginx/app.lua: the Lua application of the nginx test (and of the
-- README's config): /leak keeps one table per request in a module-level list
-- (line 12, the one leaking line), /churn and /json build and drop garbage.
local _M = {}

local seen = {}      -- module-level: lives as long as the worker
local recent = {}    -- the last 64 results: bounded
local slot = 0

function _M.leak()
  local n = #seen + 1
  seen[n] = { n = n, at = ngx.now() }  -- the leak
  ngx.say("leak ", n)
end

function _M.churn()
  local parts = {}
  for i = 1, 32 do
    parts[i] = { n = i, text = "item " .. i }
  end
  slot = slot % 64 + 1
  recent[slot] = parts[32].text
  ngx.say("churn ", #parts)
end

function _M.json()
  local items = {}
  for i = 1, 8 do
    items[i] = string.format('{"id":%d,"name":"n%d"}', i, i)
  end
  ngx.say('{"status":"ok","items":[', table.concat(items, ","), "]}")
end

return _M
