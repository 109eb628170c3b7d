-- sunk.lua: temporaries the JIT's allocation sinking removes (a table and
-- an FFI struct that never escape), and one that escapes every 64th time.
-- sunk: 10 11 12
local ffi = require "ffi"
local vec = ffi.typeof("struct { double x, y; }")
local n = tonumber(arg and arg[1]) or 40000
local keep = {}
local sum = 0
for i = 1, n do
  local p = { x = i, y = i * 2 }
  local v = vec(i, i)
  local q = { i, i }
  sum = sum + p.x + p.y + v.x + q[2]
  if i % 64 == 0 then keep[#keep + 1] = q end
end
print(sum, #keep)
