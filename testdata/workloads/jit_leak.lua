-- jit_leak.lua: a hot loop that the JIT compiles; the leaking allocation runs in
-- the compiled trace (the loop body is inlined into the trace of line 13).
-- truth: the leak is made at line 8 and kept at line 9, in compiled code.
local kept = {}
local n = tonumber(arg and arg[1]) or 160000
local function step(i, acc)
  if i % 6 == 0 then
    local node = { value = i, next = acc }
    kept[#kept + 1] = node
  end
  return acc
end
local acc = nil; for i = 1, n do acc = step(i, acc); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
