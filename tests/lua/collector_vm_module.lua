-- tests/lua/collector_vm_module.lua: a module that tests/lua/collector_vm_compile.lua requires again and again.
local M = {}
function M.add(a, b) return a + b end
function M.scale(t, k)
  local out = {}
  for i = 1, #t do out[i] = t[i] * k end
  return out
end
return M
