-- testdata/holders/memoize.lua: a memoizing wrapper whose closures are stored at a module's
-- fields (tests/e2e/holders.sh): each caches every result under its argument, never evicted.
-- Both closures come from one function, so "upvalue cache of function@..." fits both; each is
-- named by where it is stored. Lines marked "-- leak: PATH" leak, held by PATH.
-- usage: ljleak run memoize.lua [ROUNDS]
local rounds = tonumber(arg and arg[1]) or 40

package.preload["router"] = function()
  local function memoize(f)
    local cache = {}
    return function(key)
      local hit = cache[key]
      if hit == nil then
        hit = f(key)
        cache[key] = hit
      end
      return hit
    end
  end
  local router = {}
  router.resolve = memoize(function(path)
    return { path = path, parts = { path, #path } } -- leak: router.resolve ▸ upvalue cache[*]
  end)
  router.lookup = memoize(function(name)
    return { name, name } -- leak: router.lookup ▸ upvalue cache[*]
  end)
  return router
end

local router = require "router"
for round = 1, rounds do
  for k = 1, 25 do
    local n = (round - 1) * 25 + k
    router.resolve("/users/" .. n)
    router.lookup("user-" .. n)
  end
  collectgarbage()
end
