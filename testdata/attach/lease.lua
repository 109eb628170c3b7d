-- testdata/attach/lease.lua: holds a write lease on arg[1] (a file of its user's) for arg[2]
-- seconds, ignoring the signal that asks it to give the lease up: whoever opens the file
-- blocking waits up to /proc/sys/fs/lease-break-time (45 s) for it. Prints "leased" once held.
local ffi = require "ffi"
ffi.cdef [[
int open(const char *path, int flags, ...);
int fcntl(int fd, int cmd, ...);
unsigned int sleep(unsigned int seconds);
void *signal(int sig, void *handler);
]]
local SIGIO, SIG_IGN, F_SETLEASE, F_WRLCK = 29, ffi.cast("void *", 1), 1024, 1
ffi.C.signal(SIGIO, SIG_IGN)
local fd = ffi.C.open(arg[1], 0)
if fd < 0 or ffi.C.fcntl(fd, F_SETLEASE, ffi.cast("int", F_WRLCK)) ~= 0 then
  io.stderr:write("lease.lua: no lease on ", arg[1], "\n")
  os.exit(1)
end
print("leased")
io.stdout:flush()
ffi.C.sleep(tonumber(arg[2]) or 30)
