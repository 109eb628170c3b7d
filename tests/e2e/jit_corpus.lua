-- tests/e2e/jit_corpus.lua: compares the allocating lines of one program of
-- testdata/jit with the JIT on and with -j off, from `ljleak summary` of
-- each capture; prints one row of the table and exits 1 if they disagree.
-- usage: luajit jit_corpus.lua NAME PROGRAM ON.txt OFF.txt RESOLVED TRACE_ALLOCS
-- Tolerance: a line's events (allocations and reallocations) may differ by
-- 0.5% or 8 events, whichever is more (strings are interned: whether an equal
-- string is still alive depends on when the GC ran). Lines the program's
-- header lists after "sunk:" are allocations the JIT removes (sinking,
-- fusing a string into a buffer): there the JIT-on count must be lower.
local name, program, on_file, off_file, resolved, trace_allocs = ...
local TOL_REL, TOL_ABS = 0.005, 8

local function read_lines(file)
  local per, unresolved = {}, 0
  local section
  for l in io.lines(file) do
    if l == "ALLOCATIONS" or l == "REALLOCATIONS" then
      section = l
    elseif l == "DEALLOCATIONS" or l == "HEAP SUMMARY:" then
      section = nil
    elseif section then
      local site, events = l:match("^(@[^\t]-:%d+): (%d+) events")
      if site then
        per[site] = (per[site] or 0) + tonumber(events)
      elseif l:match("^TRACE ") then
        unresolved = unresolved + tonumber(l:match(": (%d+) events"))
      end
    end
  end
  return per, unresolved
end

local sunk = {}
for l in io.lines(program) do
  local list = l:match("^%-%- sunk:(.*)")
  if list then
    for n in list:gmatch("%d+") do sunk[tonumber(n)] = true end
  end
end

local on, unresolved = read_lines(on_file)
local off = read_lines(off_file)
local sites, matched, within, sunk_seen, problems = 0, 0, 0, {}, {}
local worst = 0   -- the largest difference of a line within the tolerance, in events
for site, n_off in pairs(off) do
  sites = sites + 1
  local line = tonumber(site:match(":(%d+)$"))
  local n_on = on[site]
  if n_on then
    matched = matched + 1
    if sunk[line] then
      if n_on < n_off then
        sunk_seen[#sunk_seen + 1] = line
      else
        problems[#problems + 1] = string.format("%s listed as sunk but %d >= %d", site, n_on, n_off)
      end
    elseif math.abs(n_on - n_off) <= math.max(TOL_ABS, TOL_REL * n_off) then
      within = within + 1
      worst = math.max(worst, math.abs(n_on - n_off))
    else
      problems[#problems + 1] = string.format("%s: %d events with the JIT on, %d off", site, n_on, n_off)
    end
  else
    problems[#problems + 1] = site .. " allocates only with -j off"
  end
end
for site in pairs(on) do
  if not off[site] then problems[#problems + 1] = site .. " allocates only with the JIT on" end
end
for line in pairs(sunk) do
  local seen = false
  for _, l in ipairs(sunk_seen) do seen = seen or l == line end
  if not seen then problems[#problems + 1] = "line " .. line .. " listed as sunk is not" end
end
if unresolved > 0 then
  problems[#problems + 1] = unresolved .. " events left at trace sites"
end
table.sort(sunk_seen)
local share = tonumber(trace_allocs) > 0 and 100 * tonumber(resolved) / tonumber(trace_allocs) or 100
print(string.format("%-16s %5d %7d %6d/%-3d %5d  %-9s %9s %6.1f%%", name, sites, matched, within,
                    sites - #sunk_seen, worst, #sunk_seen > 0 and table.concat(sunk_seen, ",") or "-",
                    trace_allocs, share))
for _, p in ipairs(problems) do print("    " .. p) end
os.exit(#problems == 0 and 0 or 1)
