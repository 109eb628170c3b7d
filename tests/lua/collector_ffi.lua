-- tests/lua/collector_ffi.lua: FFI cdata, VLAs, ffi.gc, metatypes, strings from C buffers, callbacks.
local ffi = require "ffi"
ffi.cdef[[
typedef struct { double x, y; int tag; } point;
void *malloc(size_t n);
void free(void *p);
int snprintf(char *s, size_t n, const char *fmt, ...);
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
]]
local point = ffi.metatype("point", { __add = function(a, b) return ffi.new("point", a.x + b.x, a.y + b.y, 0) end })
local acc = point(0, 0, 0)
local buf = ffi.new("char[64]")
local strings = {}
for i = 1, 20000 do
  acc = acc + point(i, -i, i)
  local arr = ffi.new("int[?]", i % 64 + 1)
  arr[0] = i
  if i % 100 == 0 then
    local raw = ffi.gc(ffi.C.malloc(128), ffi.C.free)
    ffi.C.snprintf(buf, 64, "%d", ffi.new("int", i))
    strings[#strings + 1] = ffi.string(buf) .. tostring(raw ~= nil)
  end
end
local n = 256
local ints = ffi.new("int[?]", n)
for i = 0, n - 1 do ints[i] = (i * 7919) % n end
local cmp = ffi.cast("int (*)(const void *, const void *)", function(a, b)
  return ffi.cast("const int *", a)[0] - ffi.cast("const int *", b)[0]
end)
ffi.C.qsort(ints, n, ffi.sizeof("int"), cmp)
cmp:free()
for i = 1, n - 1 do assert(ints[i - 1] <= ints[i]) end
assert(acc.x > 0 and #strings == 200)
dofile(arg[0]:gsub("[^/]*$", "") .. "collector_report.lua")
print("ffi workload done")
