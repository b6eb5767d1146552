#!/bin/sh
# The allocation-heavy kernels (MEDIAN per group, the chained hash join per bucket) under each
# allocator and huge pages on/off: measured (validate run, median of the repetitions) and predicted
# on a topology whose allocator costs come from `validate allocbench --calibrate` alone.
# Usage: bench/allocator_table.sh NUMATWIN TOPOLOGY [REPETITIONS] [THREADS] [refresh] > table.md
# Prints one markdown row per run: kernel, allocator, huge pages, measured s (median of the
# repetitions) with the fastest and slowest repetition, predicted s, error.
# With `refresh`, the operator costs are measured again (validate measure --costs-only
# --out-topology, about 10 s) before each kernel and allocator, and both rows of that pair are
# predicted on the refreshed topology: on a host whose neighbours move the LLC share this VM
# gets, the costs then describe the minute of the run. Each refresh's usable LLC share and LLC
# hit ns go to stderr.
set -eu
numatwin=$1
topology=$2
reps=${3:-5}
threads=${4:-2}
refresh=${5:-}
base=$topology
if [ -n "$refresh" ]; then
  fresh=$(mktemp --suffix=.json)
  trap 'rm -f "$fresh"' EXIT
fi
echo "| kernel | allocator | huge pages | measured s | fastest..slowest s | predicted s | error |"
echo "|---|---|---|---|---|---|---|"
for kernel in median hash-join; do
  if [ "$kernel" = median ]; then
    args="--workload median --allocation per-group --records 2e7 --groups 2e5"
  else
    args="--workload hash-join --allocation per-bucket --records 2e7 --build-records 2e6 --groups 2e6"
  fi
  for allocator in glibc jemalloc tcmalloc tbbmalloc; do
    if [ -n "$refresh" ]; then
      "$numatwin" validate measure --costs-only --topology "$base" --out-topology "$fresh" > /dev/null 2>&1
      topology=$fresh
      python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["operator_costs"]
print("refreshed before %s %s: llc_usable_share %.3f, llc_hit_ns %.1f" % (sys.argv[2], sys.argv[3], c["llc_usable_share"]["value"], c["llc_hit_ns"]["value"]), file=sys.stderr)' "$fresh" "$kernel" "$allocator"
    fi
    for huge in off on; do
      # shellcheck disable=SC2086
      "$numatwin" validate run --topology "$topology" $args --threads "$threads" --allocator "$allocator" --huge-pages "$huge" \
        --repetitions "$reps" --json 2>/dev/null |
        python3 -c '
import json, sys
k = json.load(sys.stdin)["kernels"][0]
d = k["details"]
assert d["verified"], "not verified"
r = d["repetition_s"]
print("| %s | %s | %s | %.3f | %.3f..%.3f | %.3f | %+.1f %% |" % (sys.argv[1], d["allocator"], sys.argv[2], d["measured_s"],
      min(r), max(r), d["predicted_s"], 100.0 * d["error"]))' "$kernel" "$huge"
    done
  done
done
