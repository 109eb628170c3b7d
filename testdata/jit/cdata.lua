-- cdata.lua: FFI data made in a compiled loop through ctype objects (a
-- struct, a fixed array, a boxed 64-bit integer), kept in a ring of 64.
-- The JIT keeps the int64_t that line 15 makes before it multiplies in a
-- register: only the product is boxed.
-- sunk: 15
local ffi = require "ffi"
ffi.cdef "typedef struct { double x, y; int id; } jit_corpus_point;"
local point = ffi.typeof("jit_corpus_point")
local pair = ffi.typeof("int32_t[2]")
local n = tonumber(arg and arg[1]) or 30000
local ring = {}
for i = 1, n do
  local p = point(i, -i, i % 100)
  local a = pair(i, i + 1)
  local big = ffi.new("int64_t", i) * 4096
  ring[i % 64 + 1] = { p, a, big }
end
print(#ring)
