-- tests/lua/collector_trace_stale.lua: a trace recorded while the program's own "record" handler held the event, with the number and start of a trace recorded before (whose log the collector kept): it keeps its trace site, never the earlier recording's line.
local keep = {}
local function fill(n, first)
  for i = 1, n do
    if first then keep[i % 64 + 1] = {}
    else keep[i % 64 + 1] = {} end
  end
end
fill(tonumber(arg[1]) or 57, true)   -- trace 1 is recorded on line 5's path, and never runs
jit.attach(function() end, "record")
jit.flush()
fill(20000, false)                   -- trace 1 again, on line 6's path, unseen
print(#keep)
