-- tests/lua/collector_error.lua: fails with a runtime error two calls deep.
local function inner() error("boom") end
local function outer() inner() end
outer()
