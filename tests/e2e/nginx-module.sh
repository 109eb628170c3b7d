#!/bin/sh
# tests/e2e/nginx-module.sh: the module's nginx side without nginx: a stand-in
# ngx (get_phase, timer.every) and os.getenv answering as nginx's env
# directives do, in plain luajit. start{} in init_by_lua defers to each
# worker's collector.nginx(), which registers, sets up its timer and starts
# that capture with the options of start{} and of the env directives; the
# timer takes requests and, when nginx ends it (premature), ends the capture
# at exit; unknown fields, bad values in the environment or in a request are
# errors; no signal is installed under nginx, and nginx's own are refused.
E2E_NAME=nginx-module
. tests/e2e/lib.sh
export LUA_CPATH="$BUILD/lua/?.so;;"
export LJLEAK_RUN_DIR=$tmp/run
mkdir -p "$tmp/caps"
cat > "$tmp/worker.lua" <<'EOF'
local ROOT, RUN, LJLEAK = arg[1], arg[2], arg[3]
local phase = "init"
local timers = {}
local conf_env = { LJLEAK_ROOT = ROOT, LJLEAK_PERIOD = "0.25" }
local real_getenv = os.getenv
os.getenv = function(name)
  if conf_env[name] ~= nil then return conf_env[name] end
  return real_getenv(name)
end
ngx = {
  get_phase = function() return phase end,
  timer = { every = function(delay, f) timers[#timers + 1] = { delay = delay, f = f }; return true end },
}
local function check(name, cond, detail)
  print((cond and "ok   " or "FAIL ") .. name .. (cond and "" or (" (" .. tostring(detail) .. ")")))
end
local function read(path)
  local f = io.open(path)
  if not f then return nil end
  local text = f:read("*a")
  f:close()
  return text
end
local function request(text)
  local f = assert(io.open(RUN .. "/" .. pid .. ".request", "w"))
  f:write(text)
  f:close()
  timers[1].f(false)
  return read(RUN .. "/" .. pid)
end
-- info(dir, key): what ljleak info --get key says of the capture in dir
local function info(dir, key)
  local p = io.popen(("'%s' info --get %s '%s' 2>/dev/null"):format(LJLEAK, key, dir))
  local value = p:read("*l")
  p:close()
  return value
end
pid = io.open("/proc/self/stat"):read("*n")

local c = require "ljleak.collector"
check("the_master_does_not_register", read(RUN .. "/" .. pid) == nil)
local ok, err = c.start { perod = 1 }
check("an_unknown_start_field_is_refused", ok == nil and err == "unknown option 'perod'", err)
ok, err = c.start { dir = ROOT .. "/one" }
check("dir_in_init_by_lua_is_refused", ok == nil and err:find("give root, not dir", 1, true), err)
ok, err = c.start { sample = "64k" }
check("start_in_init_by_lua_is_kept_for_the_workers", ok == true and not c.status().active, err)
ok, err = c.nginx()
check("nginx_in_init_by_lua_is_refused", ok == nil and err:find("init_worker_by_lua", 1, true), err)

phase = "init_worker"
ok, err = c.nginx()
check("nginx_in_a_worker_succeeds", ok == true, err)
check("one_timer_every_second", #timers == 1 and timers[1].delay == 1, #timers)
local st = c.status()
check("the_worker_starts_the_kept_capture", st.active and st.dir:sub(1, #ROOT) == ROOT, st.dir)
local sample, period = info(st.dir, "sample"), info(st.dir, "period")
check("its_sample_is_start_s", sample == "65536", sample)
check("its_period_is_the_env_directive_s", period == "0.25", period)
local reg = read(RUN .. "/" .. pid) or ""
check("the_worker_registers", reg:find("\npid=" .. pid .. "\n", 1, true), reg)
check("it_polls_from_the_timer", reg:find("\npoll=timer\n", 1, true), reg)
check("its_root_is_the_env_directive_s", reg:find("\nroot=" .. ROOT .. "\n", 1, true), reg)
check("it_says_it_is_capturing", reg:find("\nstate=capturing\n", 1, true), reg)
check("a_second_nginx_call_is_harmless", c.nginx() == true and #timers == 1)

reg = request("id=t1\naction=stop\n")
check("the_tick_takes_a_stop_request", not c.status().active)
check("the_stop_is_answered", reg:find("\nrequest=t1\nresult=ok\n", 1, true), reg)
reg = request("id=t2\naction=start\nperiod=soon\n")
check("a_bad_request_value_is_answered_with_the_reason",
      reg:find("\nrequest=t2\nresult=error\nerror=bad value 'soon' for period in the request\n", 1, true), reg)
reg = request("id=t2b\naction=start\nstack_depth=999\n")
check("a_request_takes_stack_depth_and_checks_it",
      reg:find("\nrequest=t2b\nresult=error\nerror=bad value '999' for stack_depth in the request\n", 1, true), reg)
conf_env.LJLEAK_SAMPLE = "lots"
reg = request("id=t3\naction=start\n")
check("a_bad_env_value_refuses_a_request",
      reg:find("\nrequest=t3\nresult=error\nerror=bad value 'lots' in LJLEAK_SAMPLE\n", 1, true), reg)
ok, err = c.start {}
check("a_bad_env_value_refuses_start", ok == nil and err == "bad value 'lots' in LJLEAK_SAMPLE", err)
conf_env.LJLEAK_SAMPLE = nil
check("a_tick_without_a_request_does_nothing", request ~= nil and (timers[1].f(false) == nil) and not c.status().active)
reg = request("id=t4\naction=start\nevery=1M\n")
st = c.status()
check("the_tick_takes_a_start_request", st.active and reg:find("\nrequest=t4\nresult=ok\n", 1, true), reg)
local t = {}
for i = 1, 20000 do t[i] = { i } end
timers[1].f(true)
check("the_premature_tick_ends_the_capture", not c.status().active)
local reason = info(st.dir, "stop_reason")
check("its_stop_reason_is_exit", reason == "exit", reason)
reg = read(RUN .. "/" .. pid) or ""
check("the_registration_says_exiting", reg:find("\nstate=exiting\n", 1, true), reg)
EOF
luajit "$tmp/worker.lua" "$tmp/caps" "$tmp/run" "$LJLEAK" > "$tmp/worker.out" 2>"$tmp/worker.err"
check "the_stand_in_worker_ran" test $? = 0
cat "$tmp/worker.err"
while IFS= read -r line; do
  case "$line" in
    "ok   "*) ok "${line#ok   }" ;;
    "FAIL "*) bad "${line#FAIL }" ;;
  esac
done < "$tmp/worker.out"

# Signals under nginx: none by default, and nginx's own are refused.
cat > "$tmp/signal.lua" <<'EOF'
ngx = { get_phase = function() return "init" end }
require "ljleak.collector"
local status = io.open("/proc/self/status"):read("*a")
local caught = status:match("\nSigCgt:%s*(%x+)")
io.write(tonumber(caught:sub(-8), 16) % 4096 >= 2048 and "usr2\n" or "none\n")
EOF
check "no_signal_handler_under_nginx" test "$(luajit "$tmp/signal.lua" 2>/dev/null)" = none
out=$(LJLEAK_SIGNAL=USR2 luajit "$tmp/signal.lua" 2>"$tmp/signal.err")
check "usr2_is_refused_under_nginx" test "$out" = none
check "the_refusal_says_why" grep -q 'LJLEAK_SIGNAL=USR2 is a signal nginx uses' "$tmp/signal.err"
cat > "$tmp/plain.lua" <<'EOF'
require "ljleak.collector"
local status = io.open("/proc/self/status"):read("*a")
local caught = status:match("\nSigCgt:%s*(%x+)")
io.write(tonumber(caught:sub(-8), 16) % 4096 >= 2048 and "usr2\n" or "none\n")
EOF
check "a_plain_program_keeps_usr2" test "$(luajit "$tmp/plain.lua" 2>/dev/null)" = usr2
finish
