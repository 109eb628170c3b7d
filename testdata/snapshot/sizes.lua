-- testdata/snapshot/sizes.lua: objects of every kind and size, held by the global `held`, for
-- the test that every block the allocator gave out is one object (or object part) of a heap
-- snapshot with its exact size (tests/test_collector_snapshot.c, tests/e2e/snapshot.sh).
-- A host may give it host_cclosure(n) (a C closure of n upvalues), host_udata(n) (userdata
-- of n bytes) and host_lightud(i) (a light userdata in a segment of its own each); without
-- them it makes what the standard libraries make.
local ffi = require "ffi"
held = {}
local function keep(x) held[#held + 1] = x end

-- Strings: every length mod 4, short and long, each unique.
for len = 1, 80 do keep(string.rep(string.char(64 + len % 26), len - 1) .. "$") end
for _, base in ipairs({1000, 4093, 65536, 1048576}) do
  for k = 0, 3 do keep(string.rep("L", base + k - 1) .. tostring(k)) end
end
for i = 1, 400 do keep("s" .. i) end  -- concatenations, lengths 2 to 4

-- Tables: empty, colocated arrays (a template's and a constructor's), separated (grown out of
-- their colocated array), shrunk (a colocated array stays in its block), array and hash parts
-- small and huge, weak, with metatables.
keep({})
keep({1, 2, 3})
local x = #held
keep({x, x + 1, x + 2, x + 3, x + 4})
keep({a = 1, b = 2, c = 3})
local grown = {1, 2, 3}
for i = 4, 100 do grown[i] = i end
keep(grown)
local shrunk = {1, 2, 3, 4, 5, 6, 7, 8}
for i = 1, 8 do shrunk[i] = nil end
for i = 1, 40 do shrunk["k" .. i] = i end
keep(shrunk)
local separated = {}
for i = 1, 100 do separated[i] = i end
for i = 1, 100 do separated[i] = nil end
for i = 1, 40 do separated["k" .. i] = i end
keep(separated)
local huge_array, huge_hash, mixed = {}, {}, {}
for i = 1, 100000 do huge_array[i] = i end
for i = 1, 20000 do huge_hash["h" .. i] = i end
for i = 1, 1000 do mixed[i] = i; mixed[-i] = i; mixed[i + 0.5] = i end
keep(huge_array); keep(huge_hash); keep(mixed)
for n = 0, 20 do
  local t = {}
  for i = 1, n do t[i] = i; t["f" .. i] = i end
  keep(t)
end
keep(setmetatable({}, {__mode = "k"}))
keep(setmetatable({keep}, {__mode = "v", __index = held}))
local ok, table_new = pcall(require, "table.new")
if ok then keep(table_new(7, 9)); keep(table_new(0, 0)); keep(table_new(100, 0)) end

-- Lua closures of 0 to 60 upvalues (the most LuaJIT allows) and the prototypes of load().
for n = 0, 60 do
  local names = {}
  for i = 1, n do names[i] = "u" .. i end
  local code = n == 0 and "return function() return 0 end"
    or ("local %s = %s return function() return %s end"):format(
      table.concat(names, ", "), table.concat(names, ", "):gsub("u", ""), table.concat(names, " + "))
  local fn = assert(load(code, "=upvalues" .. n))()
  keep(fn)
end
for i = 1, 30 do keep(assert(load(("return %d, %q"):format(i, string.rep("p", i)), "=chunk" .. i))) end

-- C closures.
local host_cclosure = rawget(_G, "host_cclosure")
if host_cclosure then
  for n = 0, 24 do keep(host_cclosure(n)) end
  keep(host_cclosure(255))
end
keep(string.gmatch("a b c", "%a"))
keep(coroutine.wrap(function() end))

-- Threads: grown stacks, a small one, a dead one, one with open upvalues.
local function deep(n) if n == 0 then coroutine.yield() return 0 end return 1 + deep(n - 1) end
for _, depth in ipairs({0, 10, 100, 1000, 5000}) do
  local co = coroutine.create(deep)
  coroutine.resume(co, depth)
  keep(co)
end
local dead = coroutine.create(function() return 1 end)
coroutine.resume(dead)
keep(dead)
local open = coroutine.create(function()
  local a, b = {}, "open"
  keep(function() return a, b end)
  coroutine.yield()
end)
coroutine.resume(open)
keep(open)

-- Userdata: proxies, files, string buffers (their contents a block of their own), a host's.
keep(newproxy(true)); keep(newproxy(false))
keep(io.tmpfile())
local has_buffer, buffer = pcall(require, "string.buffer")
if has_buffer then
  keep(buffer.new())
  keep(buffer.new(100))
  keep(buffer.new():put(string.rep("b", 5000)))
  local partly = buffer.new():put("read me")
  partly:get(4)
  keep(partly)
  keep(buffer.new():set("a borrowed string"))
end
local host_udata = rawget(_G, "host_udata")
if host_udata then for n = 0, 40 do keep(host_udata(n)) end keep(host_udata(100000)) end
local host_lightud = rawget(_G, "host_lightud")
if host_lightud then for i = 0, 39 do keep(host_lightud(i)) end end

-- Cdata: fixed, boxed 64-bit integers, pointers, functions, callbacks, VLA and aligned (with
-- their headers), big, with a finalizer.
ffi.cdef [[
  typedef struct { int n; char tail[?]; } sizes_vls;
  typedef struct { double d; } __attribute__((aligned(64))) sizes_a64;
  int abs(int);
]]
keep(ffi.new("int")); keep(ffi.new("double[3]")); keep(ffi.new("char[1]"))
keep(ffi.new("int[100000]"))
for i = 1, 20 do keep(ffi.new("int64_t", i)); keep(ffi.new("uint8_t[?]", i)) end
for i = 0, 9 do keep(ffi.new("sizes_vls", i)) end
keep(ffi.new("sizes_a64")); keep(ffi.new("sizes_a64[3]")); keep(ffi.new("sizes_a64[?]", 5))
keep(ffi.cast("void *", 12345))
keep(ffi.C.abs)
keep(ffi.cast("int (*)(int)", function(v) return v end))
keep(ffi.gc(ffi.new("int[2]"), function() end))

-- Hot loops (traces when the JIT is on), some that allocate.
local function sum(n) local s = 0 for i = 1, n do s = s + i end return s end
keep(sum); sum(1000)
local function make(n)
  local out = {}
  for i = 1, n do out[i] = {i, "m" .. i} end
  return out
end
keep(make(500))
local function make_cdata(n)
  local out = {}
  for i = 1, n do out[i] = ffi.new("int64_t", i); out[n + i] = ffi.new("uint8_t[?]", i % 7) end
  return out
end
keep(make_cdata(300))
