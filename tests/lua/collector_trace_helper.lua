-- tests/lua/collector_trace_helper.lua: a helper in another file, inlined into its caller's trace.
local M = {}
function M.pair(a, i)
  return { first = a, n = i }
end
return M
