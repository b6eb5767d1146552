#!/usr/bin/env bash
# The headless render mode through the real executable, as `numatwin render` will call it:
# writes PNG and SVG without a display, and keeps the exit-status convention (1 bad input,
# 2 bad command line). Usage: render_command_test.sh NUMATWIN_GUI OUT_DIR
set -euo pipefail
gui="$1"
out="$2"
mkdir -p "${out}"
rm -f "${out}"/*.png "${out}"/*.svg
unset DISPLAY
fail() { echo "FAIL: $*"; exit 1; }

"${gui}" --render --topology nehalem-ex-4s --workload shuffle --algorithm naive --threads 32 --step 0 \
  --out "${out}/naive-step0.png" || fail "PNG render exited $?"
"${gui}" --render --topology nehalem-ex-4s --workload shuffle --algorithm ring --threads 32 --step all \
  --out "${out}/ring-all.svg" || fail "SVG render exited $?"
[[ "$(head -c 8 "${out}/naive-step0.png" | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] || fail "not a PNG"
grep -q "<svg" "${out}/ring-all.svg" || fail "not an SVG"

status=0; "${gui}" --render --topology nehalem-ex-4s --out "${out}/x.gif" 2>/dev/null || status=$?
[[ ${status} -eq 2 ]] || fail "a .gif output should exit 2, got ${status}"
status=0; "${gui}" --render --topology no-such-machine --out "${out}/x.png" 2>"${out}/err.txt" || status=$?
[[ ${status} -eq 1 ]] || fail "an unknown machine should exit 1, got ${status}"
grep -q "no-such-machine" "${out}/err.txt" || fail "the error should name the machine"
echo "PASS: render mode wrote PNG and SVG; bad input exits 1, a bad command line 2"
