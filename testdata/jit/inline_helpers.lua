-- inline_helpers.lua: small helpers the JIT inlines into their caller's
-- trace (used by inline_calls.lua).
local M = {}
function M.point(x, y)
  return { x = x, y = y }
end
function M.label(p)
  return "p(" .. p.x .. "," .. p.y .. ")"
end
return M
