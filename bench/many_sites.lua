-- bench/many_sites.lua: the many allocation sites of a large service, for bench/diff-sites.sh:
-- a function of SITES lines, each making a table (one line in ten keeps its table, the rest are
-- garbage at once), called ROUNDS times.
-- usage: ljleak run many_sites.lua [SITES [ROUNDS]]
local sites = tonumber(arg and arg[1]) or 3000
local rounds = tonumber(arg and arg[2]) or 400
local lines = { "local keep, round = ...", "local made" }
for i = 1, sites do
  if i % 10 == 0 then
    lines[#lines + 1] = ("keep[#keep + 1] = { round, %d }"):format(i)
  else
    lines[#lines + 1] = ("made = { round, %d, 'x' }"):format(i)
  end
end
lines[#lines + 1] = "for k = 1, 200 do made = { k } end"
local body = assert(load(table.concat(lines, "\n"), "@many_sites_body.lua"))
local keep = {}
for round = 1, rounds do
  body(keep, round)
end
