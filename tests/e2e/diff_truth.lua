-- tests/e2e/diff_truth.lua: checks an `ljleak diff --format json` result against a workload's truth file.
-- usage: luajit tests/e2e/diff_truth.lua RESULT.json TRUTH [new]
-- With "new", the result is a base comparison: the leak lines must be `new`
-- and nothing else may be flagged. Prints one line per problem; exits 1 if any.

-- A small JSON reader: enough for the result's objects, arrays, strings, numbers.
local function decode(text)
  local pos = 1
  local function skip() pos = text:find("[^ \t\r\n]", pos) or #text + 1 end
  local value
  local function str()
    local out, i = {}, pos + 1
    while true do
      local c = text:sub(i, i)
      if c == '"' then pos = i + 1; return table.concat(out) end
      if c == "\\" then
        local e = text:sub(i + 1, i + 1)
        if e == "u" then
          local code = tonumber(text:sub(i + 2, i + 5), 16)
          out[#out + 1] = code < 128 and string.char(code) or "?"
          i = i + 6
        else
          out[#out + 1] = ({ n = "\n", t = "\t", r = "\r", b = "\b", f = "\f" })[e] or e
          i = i + 2
        end
      elseif c == "" then error("unterminated string")
      else out[#out + 1] = c; i = i + 1 end
    end
  end
  function value()
    skip()
    local c = text:sub(pos, pos)
    if c == "{" then
      local obj = {}; pos = pos + 1; skip()
      if text:sub(pos, pos) == "}" then pos = pos + 1; return obj end
      while true do
        skip(); local k = str(); skip(); pos = pos + 1  -- ':'
        obj[k] = value(); skip()
        local d = text:sub(pos, pos); pos = pos + 1
        if d == "}" then return obj end
      end
    elseif c == "[" then
      local arr = {}; pos = pos + 1; skip()
      if text:sub(pos, pos) == "]" then pos = pos + 1; return arr end
      while true do
        arr[#arr + 1] = value(); skip()
        local d = text:sub(pos, pos); pos = pos + 1
        if d == "]" then return arr end
      end
    elseif c == '"' then return str()
    elseif text:sub(pos, pos + 3) == "null" then pos = pos + 4; return nil
    elseif text:sub(pos, pos + 3) == "true" then pos = pos + 4; return true
    elseif text:sub(pos, pos + 4) == "false" then pos = pos + 5; return false
    else
      local num = text:match("^-?[%d.eE+-]+", pos)
      if not num then error("bad JSON at byte " .. pos) end
      pos = pos + #num
      return tonumber(num)
    end
  end
  return value()
end

local result_path, truth_path, mode = arg[1], arg[2], arg[3]
local f = assert(io.open(result_path)); local result = decode(f:read("*a")); f:close()

local leaks, allowed = {}, {}
for line in io.lines(truth_path) do
  local file, lines = line:match("^leak%s+(%S+):([%d,]+)")
  if file then
    local group = { file = file, lines = {}, text = line:match("^leak%s+(%S+)") }
    for l in lines:gmatch("%d+") do group.lines[tonumber(l)] = true end
    leaks[#leaks + 1] = group
  end
  local name = line:match("^allow%s+(.+)$")
  if name then allowed[name] = true end
end

-- The file and line a site stands for: "@dir/x.lua:12". A trace site
-- ("TRACE started at @dir/x.lua:12") stands for no line: compiled code's
-- allocations are charged to their own lines.
local function site_place(name)
  local chunk, line = name:match("^@(.*):(%d+)$")
  if not chunk then return nil end
  return chunk:match("([^/]+)$"), tonumber(line)
end

local function in_group(site, group)
  local file, line = site_place(site.name)
  return file == group.file and group.lines[line]
end

local flagged_word = mode == "new" and "new" or "growing"
local problems, found = 0, {}
for _, site in ipairs(result.sites) do
  local flagged = site.verdict == flagged_word or site.verdict == "worse"
  if flagged then
    local known = allowed[site.name]
    for i, group in ipairs(leaks) do
      if in_group(site, group) then found[i] = true; known = true end
    end
    if not known then
      print(string.format("unexpected %s site: %s", site.verdict, site.name)); problems = problems + 1
    end
  end
end
for i, group in ipairs(leaks) do
  if not found[i] then
    print(string.format("leak not found: %s (no %s site at those lines)", group.text, flagged_word))
    problems = problems + 1
  end
end
os.exit(problems == 0 and 0 or 1)
