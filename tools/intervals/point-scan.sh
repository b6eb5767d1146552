#!/usr/bin/env bash
# Where each prediction's point (at the costs' own values) stands against its 90 % interval, over
# five machines x seven operators x 1 and 16 threads (issue 39 item 1): one line per prediction,
#   MACHINE WORKLOAD THREADS SIDE [COSTS AT AN END OF THEIR RANGE] POINT P5 MEDIAN P95
# Usage: tools/intervals/point-scan.sh [NUMATWIN]   (default build/release/cli/numatwin)
set -euo pipefail
numatwin="${1:-build/release/cli/numatwin}"
for t in nehalem-ex-4s skylake-4114-2s xeon-platinum-8480-2s epyc-9354p-nps4 xeon-e7-4850v4-4s; do
  for w in hash-join count median index-join sort-merge-join partitioned-aggregation subarray; do
    for n in 1 16; do
      "${numatwin}" predict --topology "$t" --workload "$w" --threads "$n" --json 2>/dev/null |
        python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except ValueError:
    sys.exit()
u = d["uncertainty"]
p = u.get("point")
if not p:
    sys.exit()
pt, i = p["time_s"], u["time_s"]
print(sys.argv[1], sys.argv[2], sys.argv[3], pt["side"], [c["name"] for c in pt["costs_at_range_end"]],
      round(pt["value"], 4), round(i["p5"], 4), round(i["median"], 4), round(i["p95"], 4))
' "$t" "$w" "$n" || true
    done
  done
done
