-- closures.lua: closures made in a loop (LuaJIT 2.1 compiles no closure
-- creation: the loop around it runs in the interpreter, or stitches), next
-- to a compiled loop that calls them and allocates its results.
local n = tonumber(arg and arg[1]) or 20000
local handlers = {}
for i = 1, n do
  local k = i % 64 + 1
  handlers[k] = function(x) return { x, i } end
end
local out = {}
for i = 1, n * 2 do
  local f = handlers[i % 64 + 1]
  out[i % 128 + 1] = f(i)
end
print(#handlers, #out)
