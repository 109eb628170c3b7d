-- flush_leak.lua: flush_few_steady's access log, flushed when it holds
-- three tenths of the run's requests, but every fourth entry is also kept
-- in an audit list that is never emptied: a leak under the teeth. The
-- entries that leak are made at the same line as those flushed.
-- No collectgarbage() of its own.
local n = tonumber(arg and arg[1]) or 160000
local capacity = math.floor(n * 0.3)
local log, audit, written = {}, {}, 0
local function request(i)
  local headers = { method = "GET", path = "/item/" .. (i % 500) }
  local entry = { at = i, line = "GET " .. headers.path .. " 200 " .. i }
  log[#log + 1] = entry
  if i % 4 == 0 then audit[#audit + 1] = entry end
  if #log >= capacity then written = written + #log; log = {} end
end
for i = 1, n do request(i) end
io.write("flush_leak: ", n, " requests, ", written, " entries written, ", #audit, " kept\n")
