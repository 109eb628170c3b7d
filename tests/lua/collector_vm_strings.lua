-- tests/lua/collector_vm_strings.lua: strings kept (line 4), by a helper called on line 7: the string table grows under that stack.
local kept = {}
local function keep(i)
  kept[#kept + 1] = "kept string " .. i
end
for i = 1, 50000 do
  keep(i)
end
print(#kept)
