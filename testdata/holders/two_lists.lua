-- testdata/holders/two_lists.lua: one line's sessions kept half in the global `left`, half in
-- `right` (tests/e2e/holders.sh). The two keys of _G are names the code writes, not keys made
-- at run time: the paths are _G.left[*] and _G.right[*] (they were _G[*][*]); neither list
-- keeps most of them, so the suspect is what keeps both, _G, named so (it was _G.left).
-- usage: ljleak run two_lists.lua [ROUNDS]
local rounds = tonumber(arg and arg[1]) or 40
left, right = {}, {}
for round = 1, rounds do
  for k = 1, 40 do
    local n = (round - 1) * 40 + k
    local list = n % 2 == 0 and left or right
    list[#list + 1] = { n }
  end
  collectgarbage()
end
