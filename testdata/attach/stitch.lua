-- testdata/attach/stitch.lua: a hot loop that calls into C between its rounds: its traces are
-- stitched across the call, so the trace recorder is often running when attach's hook fires.
-- Prints done and its count, and exits 7: a crash shows as another status.
local rounds = tonumber(arg[1]) or 30
local keep = {}
for i = 1, rounds do
  for j = 1, 200 do
    keep[#keep + 1] = { id = j, name = "x" .. j }
    local t = { j, j + 1 }
  end
  os.execute("sleep 0.1")
end
print("done", #keep)
os.exit(7)
