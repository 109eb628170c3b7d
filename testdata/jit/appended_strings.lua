-- appended_strings.lua: three strings built from one key in a loop (lines
-- 16, 18, 19), beside an inlined call whose string the trace drops (line
-- 11). In the loop's copy the JIT appends line 18's pieces to the buffer
-- that built the key instead of putting the key into a new one (one put
-- fewer than it recorded), so the copies of the puts no longer line up
-- with the recorded ones; the strings they make still do, and each line
-- gets its own, as with -j off. (Line 14 grows the Lua stack first, with
-- the JIT on as off.)
-- sunk: 11
local n = tonumber(arg and arg[1]) or 20000
local function wrap(key) return "<" .. key .. ">" end
local keep = {}
local function depth(k) if k > 0 then return 1 + depth(k - 1) end return 0 end
keep[1] = depth(40)
for i = 1, n do
  local key = "k" .. i
  local wrapped = wrap(key)
  keep[i % 32 + 1] = key .. "/" .. i
  if i % 4 == 0 then keep[i % 32 + 5] = key .. "!" end
end
print(#keep)
