-- inline_calls.lua: a loop that calls two small helpers from another file
-- (inline_helpers.lua), inlined into the loop's trace, and keeps both results.
local dir = (arg and arg[0] or ""):match("^(.*/)") or ""
local h = dofile(dir .. "inline_helpers.lua")
local n = tonumber(arg and arg[1]) or 30000
local ring = {}
for i = 1, n do
  local p = h.point(i, i + 1)
  local s = h.label(p)
  ring[i % 256 + 1] = { p, s }
end
print(#ring)
