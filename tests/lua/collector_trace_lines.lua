-- tests/lua/collector_trace_lines.lua: compiled loops whose allocations have known lines: a table, a call inlined from another file, a string.
local helper = dofile(arg[0]:gsub("[^/]*$", "") .. "collector_trace_helper.lua")
local n = tonumber(arg[1]) or 20000
local keep = {}
for i = 1, n do
  local t = { i, i + 1 }
  keep[i % 32 + 1] = helper.pair(t, i)
  keep[i % 32 + 33] = "k" .. i
end
print(#keep)
