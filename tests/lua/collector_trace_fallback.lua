-- tests/lua/collector_trace_fallback.lua: a "record" handler of the program's own (as -jdump attaches) takes the collector's place: its traces keep their trace sites.
jit.attach(function() end, "record")
local keep = {}
for i = 1, 20000 do keep[i % 64 + 1] = { i } end
print(#keep)
