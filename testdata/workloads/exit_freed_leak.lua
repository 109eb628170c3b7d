-- exit_freed_leak.lua: a registry that grows for the whole run and is released
-- only at shutdown, so an end-of-run summary sees nothing left; across the
-- boundaries it grows.
-- truth: leak of the entry made and kept at line 10.
local registry = {}
local n = tonumber(arg and arg[1]) or 160000
local function request(i)
  local tmp = { i }
  if i % 10 == 0 then
    registry[#registry + 1] = { id = i, name = "r" .. i }
  end
  return tmp[1]
end
for i = 1, n do request(i); last_label = "req-" .. i; if i % 10000 == 0 then collectgarbage() end end
registry = nil            -- shutdown: everything is released before exit
collectgarbage(); collectgarbage()
