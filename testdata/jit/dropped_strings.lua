-- dropped_strings.lua: a loop whose trace builds strings it then drops:
-- the key of line 20 is only looked up in an empty table (the lookup is
-- folded away) and the result of wrap (line 14, inlined) is never used,
-- so the assembler makes no code for them; but it does for the string of
-- line 22, built right beside them, which the loop keeps. The calls of
-- the trace's code are not all the ones it recorded: line 22 gets every
-- one of its strings, as with -j off. (Line 18 grows the Lua stack first,
-- with the JIT on as off.)
-- sunk: 14 20
local M = {}
local mt = { __index = M }
local cache = setmetatable({ items = {} }, mt)
function M.get(self, key) return self.items[key] end
function M.wrap(self, key) return "<" .. key .. ">" end
local n = tonumber(arg and arg[1]) or 20000
local keep = {}
local function depth(k) if k > 0 then return 1 + depth(k - 1) end return 0 end
keep[1] = depth(40)
for i = 1, n do
  local key = "k" .. i
  local found = cache:get(key)
  keep[i % 32 + 3] = i .. "x"
  local wrapped = cache:wrap(key)
  if not wrapped then keep[1] = found end
end
print(#keep)
