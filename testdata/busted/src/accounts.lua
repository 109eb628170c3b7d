-- testdata/busted/src/accounts.lua: a module under test; its cache of
-- logins is never emptied (the leak the suite's "remembers" test shows),
-- its country table is built once and kept (a cache warmed once).
local accounts = {}

local logins = {}        -- module-level cache: every login kept for ever
local countries          -- built on first use, then reused

function accounts.login(name, token)
  local entry = { name = name, token = token, at = #logins + 1 }
  logins[#logins + 1] = entry
  return entry
end

function accounts.countries()
  if not countries then
    countries = {}
    for i = 1, 400 do
      countries[i] = { code = string.format("C%03d", i), name = "country " .. i }
    end
  end
  return countries
end

function accounts.parse(token)
  local user, serial = token:match("^(%w+)%-(%d+)$")
  return { user = user, serial = tonumber(serial) }
end

return accounts
