-- testdata/stacks/pcall_handler.lua: a server loop that runs each request's
-- handler (its table at line 8) under pcall (line 14) and under xpcall
-- (line 15); the JIT inlines the handler into the loop's trace behind the
-- protected frame. arg[1]: rounds (3000).
local seen = {}
local function on_error(e) return e end
local function handle(i)
  local req = {i}
  seen[#seen + 1] = req
end
local rounds = tonumber(arg and arg[1]) or 3000
for i = 1, rounds do
  if i % 1000 == 0 then seen = {} end
  pcall(handle, i)
  xpcall(handle, on_error, i)
end
