-- closure_lines.lua: closures whose function expressions span three lines,
-- made in a loop (LuaJIT 2.1 compiles no closure creation: the interpreter
-- makes them) and called from a compiled loop that keeps their results.
-- LuaJIT gives the bytecode that makes a closure (FNEW) the line the
-- expression ends on: each closure and its upvalue are charged to line 14,
-- with the JIT on as off, as Tarantool's memprof charges them, not to
-- line 12 where the function starts (by which a heap snapshot names it:
-- function@closure_lines.lua:12).
local n = tonumber(arg and arg[1]) or 20000
local handlers = {}
for i = 1, n do
  handlers[i % 64 + 1] = function(x)
    return { x, i }
  end
end
local out = {}
for i = 1, n * 2 do
  out[i % 128 + 1] = handlers[i % 64 + 1](i)
end
print(#handlers, #out)
