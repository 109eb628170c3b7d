-- tests/lua/collector_coroutines.lua: many coroutines that allocate, yield, nest and die.
local function producer(n)
  return coroutine.wrap(function()
    for i = 1, n do
      local t = { i, tostring(i) }
      coroutine.yield(t)
    end
  end)
end
local total = 0
for round = 1, 300 do
  local gens = {}
  for k = 1, 10 do gens[k] = producer(20) end
  for step = 1, 20 do
    for k = 1, 10 do
      local t = gens[k]()
      total = total + t[1] + #t[2]
    end
  end
  local co = coroutine.create(function(a)
    local inner = coroutine.create(function(b)
      local s = string.rep("x", b)
      coroutine.yield(s)
      return s .. "y"
    end)
    local _, s1 = coroutine.resume(inner, a)
    local _, s2 = coroutine.resume(inner)
    coroutine.yield(#s1 + #s2)
    error("done " .. a)
  end)
  local _, n = coroutine.resume(co, round)
  total = total + n
  local ok = coroutine.resume(co)
  assert(ok == false)
end
assert(total > 0)
dofile(arg[0]:gsub("[^/]*$", "") .. "collector_report.lua")
print("coroutine workload done")
