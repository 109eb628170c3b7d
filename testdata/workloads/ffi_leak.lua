-- ffi_leak.lua: each request fills FFI buffers; every 10th buffer is kept in
-- a pool that only grows.
-- truth: leak of the cdata made at line 10 and kept at line 11.
local ffi = require("ffi")
local buf_t = ffi.typeof("uint8_t[64]")
local pool = {}
local n = tonumber(arg and arg[1]) or 160000
local function request(i)
  local scratch = ffi.new("uint8_t[48]")
  local buf = buf_t()
  if i % 10 == 0 then pool[#pool + 1] = buf end
  scratch[0] = i % 256
  buf[0] = scratch[0]
  return buf[0]
end
for i = 1, n do request(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
