-- tests/lua/collector_fork.lua: forks while capturing; the child allocates at
-- line 12 and exits through exit(), the parent waits and allocates at line 15.
local ffi = require "ffi"
ffi.cdef "int fork(void); int waitpid(int pid, int *status, int options); void exit(int status);"
local keep = {}
for i = 1, 2000 do keep[i] = { i } end
io.stdout:flush()
local pid = ffi.C.fork()
assert(pid >= 0, "fork failed")
if pid == 0 then
  local mine = {}
  for i = 1, 5000 do mine[i] = { i } end
  ffi.C.exit(0)
end
for i = 1, 3000 do keep[i] = { i, i } end
local status = ffi.new("int[1]")
assert(ffi.C.waitpid(pid, status, 0) == pid)
print("parent done", status[0])
