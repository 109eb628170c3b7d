-- testdata/append/log_buffer.lua: a log string that every 4th request appends to and nothing
-- resets, beside a buffer of lines flushed every 100 (tests/e2e/diff-append.sh). The loop runs
-- on a trace, where a forced cycle's atomic phase waits for the trace to exit: the new copy of
-- the log made in between was young, and left out. usage: log_buffer.lua [REQUESTS]
local log = ""
local buf, nbuf = {}, 0
for i = 1, tonumber(arg and arg[1]) or 60000 do
  local line = "GET /x/" .. i .. " 200\n"
  nbuf = nbuf + 1
  buf[nbuf] = line
  if nbuf >= 100 then
    local out = table.concat(buf)
    buf, nbuf = {}, 0
    assert(#out > 0)
  end
  if i % 4 == 0 then log = log .. "e" .. i .. ";" end
end
io.write(#log, "\n")
