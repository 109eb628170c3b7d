# tests/e2e/browser.sh: headless Chromium for the browser tests, sourced after
# lib.sh: CHROMIUM (the test fails when it is missing), chromium_run and value.

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
if [ -z "$CHROMIUM" ]; then
  echo "FAIL chromium is not installed (Debian package chromium; make deps-check installs it)"
  echo "0 passed, 1 failed"
  exit 1
fi

# Headless, no sandbox (root), no background services, a fresh profile, no DNS:
# nothing can reach the network, and anything a page asks for is in the net log.
chromium_run() {
  profile=$(mktemp -d "$tmp/profile.XXXXXX")
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
    --disable-background-networking --disable-component-update --disable-sync \
    --no-first-run --disable-default-apps --disable-extensions --no-pings \
    --disable-domain-reliability --disable-client-side-phishing-detection \
    --disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate \
    --host-resolver-rules="MAP * ~NOTFOUND" --virtual-time-budget=3000 \
    --user-data-dir="$profile" "$@" 2>>"$tmp/chromium.log"
}

# Prints the value of KEY from a KEY=VALUE facts FILE (tests/browser/*.py's output).
value() { sed -n "s/^$1=//p" "$2"; }
