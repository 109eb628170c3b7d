-- testdata/append/log_leak.lua: a log kept in one string that every request appends to and
-- nothing ever resets (tests/e2e/diff-append.sh), beside a bounded cache of the lines: a new,
-- longer copy of the log at every request, the old one garbage. usage: log_leak.lua [REQUESTS]
local state = { log = "" }
local recent = {}
local requests = tonumber(arg and arg[1]) or 20000
for i = 1, requests do
  local line = "req " .. i .. " GET /items/" .. (i % 97) .. "\n"
  state.log = state.log .. line
  recent[i % 100] = { line }
end
io.write(#state.log, "\n")
