-- testdata/attach/turn_su.lua: a hostile process of nobody's, run with its run directory as
-- arg[1]: once its capture is over it locks its capture directory and becomes su (setuid root,
-- waiting for a password on its stdin) under the same pid, before ljleak attach's next step.
local ffi = require("ffi")
ffi.cdef [[
int execv(const char *path, char *const argv[]);
int chmod(const char *path, unsigned mode);
int getpid(void);
int usleep(unsigned usec);
]]
local registration, kept = arg[1] .. "/" .. ffi.C.getpid(), {}
while true do
  for i = 1, 50 do kept[#kept + 1] = {i} end
  ffi.C.usleep(2000)
  local f = io.open(registration)
  local text = f and f:read("*a") or ""
  if f then f:close() end
  local dir = text:match("\ndir=([^\n]+)")
  local index = dir and io.open(dir .. "/index")
  local ended = index and index:read("*a"):find("\nstop", 1, true)
  if index then index:close() end
  if text:find("state=idle", 1, true) and ended then
    ffi.C.chmod(dir, 0)
    local argv = ffi.new("char *[3]", {ffi.cast("char *", "su"), ffi.cast("char *", "root"), nil})
    ffi.C.execv("/usr/bin/su", argv)
  end
end
