-- flush_few_steady.lua: the same access log flushed when it holds three
-- tenths of the run's requests: three flushes in the run, whatever its
-- length. No collectgarbage() of its own.
-- truth: steady (a sawtooth of a few long teeth is not a leak).
local n = tonumber(arg and arg[1]) or 160000
local capacity = math.floor(n * 0.3)
local log, written = {}, 0
local function request(i)
  local headers = { method = "GET", path = "/item/" .. (i % 500) }
  log[#log + 1] = { at = i, line = "GET " .. headers.path .. " 200 " .. i }
  if #log >= capacity then written = written + #log; log = {} end
end
for i = 1, n do request(i) end
io.write("flush_few: ", n, " requests, ", written, " entries written\n")
