-- tests/lua/collector_vm_compile.lua: chunks compiled in a loop (loadstring on line 7, load on line 9, require of a module file on line 12), one in ten kept: their compilation is charged to those lines, called from line 16.
package.path = "tests/lua/?.lua;" .. package.path
local cache = {}
local function compile(i, how)
  local n = i % 3 == 0 and "+" or "-"
  if how == 0 then
    return loadstring("return function(x) return x " .. n .. " " .. i .. " end")()
  elseif how == 1 then
    return load("return function(x) return x * " .. i .. " end")()
  end
  package.loaded["collector_vm_module"] = nil
  local m = require("collector_vm_module")   -- not a tail call: compile stays on the stack
  return m
end
for i = 1, 3000 do
  local fn = compile(i, i % 3)
  if i % 10 == 0 then cache[#cache + 1] = fn end
end
print(#cache)
