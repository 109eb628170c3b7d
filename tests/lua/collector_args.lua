-- tests/lua/collector_args.lua: prints what the runner passed, then exits with status 7.
io.write("X=", tostring(X), " n=", select("#", ...), " ", table.concat({...}, " "), "\n")
local neg = {}
for i = -1, -10, -1 do
  if arg[i] == nil then break end
  neg[#neg + 1] = string.format("arg[%d]=%s", i, arg[i])
end
io.write(table.concat(neg, " "), "\n", "arg[0]=", arg[0], "\n")
os.exit(7)
