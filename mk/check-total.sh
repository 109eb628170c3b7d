#!/bin/sh
# Totals a make check log: Check's "Checks: N, Failures: F, Errors: E" lines
# and the end-to-end scripts' "N passed, M failed" lines.
# usage: mk/check-total.sh LOG
awk '
  /^[0-9]+%: Checks: / {
    gsub(/,/, ""); n = $3; f = $5; e = $7
    passed += n - f - e; failed += f + e; next
  }
  /^[0-9]+ passed, [0-9]+ failed/ { passed += $1; failed += $3 }
  END { printf "check: %d passed, %d failed\n", passed, failed; exit failed > 0 }
' "$1"
