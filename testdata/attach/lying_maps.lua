-- testdata/attach/lying_maps.lua: a process that lies to a debugger about its C library: it
-- points the dynamic loader's entry for it (what gdb reads to find its file) at arg[1], a path
-- of its user's choice (a FIFO there blocks whoever opens it), then runs as leak.lua does.
local ffi = require "ffi"
ffi.cdef [[
int usleep(unsigned int usec);
struct ljleak_link_map { uintptr_t addr; char *name; void *ld; struct ljleak_link_map *next, *prev; };
struct ljleak_r_debug { int version; struct ljleak_link_map *map; };
extern struct ljleak_r_debug _r_debug;
]]
local name = ffi.new("char[?]", #arg[1] + 1, arg[1])
local lied = 0
local map = ffi.C._r_debug.map
while map ~= nil do
  if ffi.string(map.name):find("/libc%.so") then
    map.name = name
    lied = lied + 1
  end
  map = map.next
end
io.stdout:write("lied about ", lied, " library\n")
io.stdout:flush()
local kept = {}
local function keep(i) kept[#kept + 1] = {i, string.rep("x", 100) .. i, {}} end
for i = 1, tonumber(arg[2] or 12000) do
  keep(i)
  ffi.C.usleep(2000)
end
print("done", #kept)
