-- flush_once_steady.lua: an access log kept in memory and written out (dropped)
-- when it holds six tenths of the run's requests: it fills, is flushed once,
-- and fills again to four tenths by the end. No collectgarbage() of its own:
-- boundaries are the program's GC cycles, which stretch as the log grows.
-- truth: steady (a buffer filled and flushed is not a leak).
local n = tonumber(arg and arg[1]) or 160000
local capacity = math.floor(n * 0.6)
local log, written = {}, 0
local function request(i)
  local headers = { method = "GET", path = "/item/" .. (i % 500) }
  log[#log + 1] = "GET " .. headers.path .. " 200 " .. i
  if #log >= capacity then written = written + #log; log = {} end
end
for i = 1, n do request(i) end
io.write("flush_once: ", n, " requests, ", written, " entries written\n")
