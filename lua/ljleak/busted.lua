-- lua/ljleak/busted.lua: ljleak busted's side inside the busted run: each test repeated, each in a capture of its own.
--
-- `ljleak busted` loads this module (as luajit -l would) before busted's own
-- main script, with the host table "ljleak.busted.host" preloaded by the
-- front end (cli/busted.c): where the captures go, how many runs, and the
-- function that lists each test in the suite's test list. It wraps busted's
-- core as it is made, so that the `it` executor runs each test (its
-- before_each and after_each too) warmup + runs times, in a capture that
-- starts before the test's first run and stops after its last: what a test
-- keeps is charged to it alone, never to the test before or after it.
--
-- Only the first run is the one busted sees (its start, its end, its
-- failures: the output handlers and the result lists count it once). The
-- later runs are silent (busted.publish muted), so busted's own bookkeeping
-- grows in the first run only, a warm-up run: never in a measured one.
local collector = require "ljleak.collector"
local host = require "ljleak.busted.host"

local M = {}

local function context_path(busted, element)
  local path = {}
  local file
  local parent = busted.context.parent(element)
  while parent do
    if parent.descriptor == "file" then
      file = parent.name
    elseif parent.name and parent.descriptor ~= "suite" then
      table.insert(path, 1, parent.name)
    end
    parent = busted.context.parent(parent)
  end
  return table.concat(path, " "), file
end

-- Records element's test line: its name and place (describe and file from context_path), with
-- the fields of its outcome.
local function record(element, describe, file, fields)
  local trace = element.trace or {}
  fields.name = element.name or ""
  fields.describe = describe
  fields.file = file or trace.short_src or ""
  fields.line = trace.currentline or 0
  host.record(fields)
end

-- os.exit while a test runs. The suite runs in ljleak's own process: a test's
-- os.exit would end it with no verdict and no report (exit 0 after os.exit(0)).
-- It is the test's error instead.
local function exit_in_test(code)
  error(string.format("os.exit(%s) in a test: ljleak busted runs the suite in its own process",
                      tostring(code)), 2)
end

-- os.exit anywhere else in the suite (a spec file's top level, a describe body, setup or
-- teardown) ended the run before any test was judged: exit 0 with no report, the leaks of the
-- tests before lost. It is busted's error there instead (a line of the test list, and the run
-- fails). busted's own exits (--help, --version, a bad option: before any test) still exit.
local exit_process = os.exit
local function exit_in_suite(code, ...)
  local caller = debug.getinfo(2, "S")
  if caller and caller.source:match("busted[/\\]compatibility%.lua$") then
    return exit_process(code, ...)
  end
  error(string.format("os.exit(%s) in the suite: ljleak busted runs it in its own process, and " ..
                      "judges its tests after it", tostring(code)), 2)
end

-- One test: warm-up runs, then measured runs, each followed by a full GC
-- cycle and its boundary; the last one also takes a heap snapshot, so a
-- leaking test's sites get their holders.
local function repeat_test(busted, executor, element, state)
  if state.round > 1 then
    -- busted's own --repeat: the test was measured in the suite's first round; here it runs
    -- once as busted runs it (busted reports it), with no capture and no second line
    return executor(element)
  end
  local describe, file = context_path(busted, element)
  local total = host.warmup + host.runs
  state.count = state.count + 1
  local dir = string.format("%s/%04d", host.root, state.count)
  local started, start_error = collector.start{
    dir = dir, edge_gc = false, snapshots = 0, stack_depth = host.stack_depth,
  }
  state.current = { status = nil, message = nil }
  state.in_test = true
  local exit = os.exit
  os.exit = exit_in_test
  local publish = busted.publish
  local done = 0
  local failed_at
  local first_failed
  for run = 1, total do
    local failed
    if run > 1 then
      -- silent: nothing reaches busted's handlers and lists; a failure is noted
      busted.publish = function(channel)
        if type(channel) == "table" and (channel[1] == "failure" or channel[1] == "error") then
          failed = true
        end
      end
    end
    local ok = pcall(executor, element)
    busted.publish = publish
    if run == 1 then
      local status = state.current.status
      first_failed = not ok or (status ~= nil and status ~= "success") or state.current.outside ~= nil
      if not state.current.started then
        -- its body never ran: its lazy_setup or before_each failed (busted's error), busted
        -- skipped it after such a failure before it, or only lists the tests (--list)
        state.current.listed = ok and status == nil and state.current.outside == nil
        break
      end
    elseif (failed or not ok) and not first_failed and not failed_at then
      failed_at = run
    end
    if started then
      if run == total and host.snapshot then
        collector.snapshot()
      else
        collector.boundary()
      end
    end
    done = run
  end
  if started then
    collector.stop()
  end
  local ran = state.current.started
  if started and not ran then
    -- no runs, no capture: its number goes to the next test
    local removed, why = host.discard(string.format("%04d", state.count))
    if removed then
      state.count = state.count - 1
    else
      io.stderr:write("ljleak busted: ", why, "\n")
    end
  end
  os.exit = exit
  state.in_test = false
  -- an error of its before_each, after_each or lazy_setup is busted's error too, even
  -- where the test itself passed
  local status = state.current.status
  if state.current.listed then
    status = "pending"   -- not run, not failed: skipped
    state.current.message = state.current.message or
      "not run: busted did not run its body (a setup of its block failed before it, or --list)"
  elseif status == nil or (status == "success" and state.current.outside) then
    status = state.current.outside or "error"
  end
  -- a test whose body never ran is listed without a capture: not run, never "steady"
  record(element, describe, file, {
    status = status,
    message = state.current.message,
    capture = ran and started and string.format("%04d", state.count) or nil,
    capture_error = ran and not started and tostring(start_error) or nil,
    warmup = ran and host.warmup or 0,
    runs = ran and done - host.warmup or 0,
    failed_run = failed_at,
  })
end

local function record_pending(busted, element, status, state)
  if state.round > 1 then
    return
  end
  local describe, file = context_path(busted, element)
  record(element, describe, file, {status = status or "pending", warmup = 0, runs = 0})
end

-- Wraps a busted core as busted.runner makes it: the `it` executor, and
-- subscribers that keep the first run's status and message.
local function install(busted)
  local state = { count = 0, round = 1 }
  os.exit = exit_in_suite
  local register = busted.register
  busted.register = function(descriptor, executor, attributes)
    if descriptor == "it" and type(executor) == "function" then
      local run_it = executor
      executor = function(element)
        return repeat_test(busted, run_it, element, state)
      end
    elseif descriptor == "pending" and type(executor) == "function" then
      local run_pending = executor
      executor = function(element)
        state.current = {}
        run_pending(element)
        record_pending(busted, element, state.current.status, state)
      end
    end
    return register(descriptor, executor, attributes)
  end
  -- busted's own --repeat runs the suite again: rounds after the first are busted's alone
  busted.subscribe({ "suite", "start" }, function(root, round)
    state.round = tonumber(round) or 1
    return nil, true
  end)
  busted.subscribe({ "test", "start" }, function()
    if state.current then
      state.current.started = true
    end
    return nil, true
  end)
  busted.subscribe({ "test", "end" }, function(element, parent, status)
    if state.current then
      state.current.status = status
    end
    return nil, true
  end)
  local function keep_message(element, parent, message)
    if state.current and not state.current.message then
      state.current.message = type(message) == "string" and message or tostring(message)
    end
    return nil, true
  end
  busted.subscribe({ "failure", "it" }, keep_message)
  busted.subscribe({ "error", "it" }, keep_message)
  busted.subscribe({ "pending", "it" }, keep_message)   -- pending("why") in the test's body
  -- Outside an `it` (a file that does not load, a describe body, setup, teardown,
  -- before_each, after_each): in a test's runs it is that test's; between tests it
  -- is a line of its own, not run, so that busted's error is in every report and
  -- in --judge's exit status, not only in busted's.
  local function outside(element, parent, message)
    if type(element) ~= "table" or element.descriptor == "it" then
      return nil, true
    end
    if state.in_test then
      state.current.outside = "error"
      keep_message(element, parent, message)
    elseif state.round == 1 then
      local describe, file = context_path(busted, element)
      if element.descriptor == "file" then
        file = element.name
      end
      local fields = {status = "error", warmup = 0, runs = 0,
                      message = type(message) == "string" and message or tostring(message)}
      record({name = element.name or element.descriptor or "suite", trace = element.trace},
             describe, file, fields)
    end
    return nil, true
  end
  busted.subscribe({ "failure" }, outside)
  busted.subscribe({ "error" }, outside)
end

-- busted.runner makes its core with require "busted.core"(); the core is
-- wrapped as it is made, before busted registers its executors on it.
local make_core = require "busted.core"
package.loaded["busted.core"] = function(...)
  local busted = make_core(...)
  install(busted)
  return busted
end

return M
