#!/usr/bin/env bash
# The shuffle kernel's streaming phase against likwid-bench's load kernel, at the same thread
# counts (1 and 2) and the same working set, on memory domain M0 (the first NUMA node):
#   likwid-bench -t load -w M0:<bytes/1024>kB:<threads> -s <seconds>   (MByte/s, 1e6 bytes/s)
#   kernel_bench shuffle/ring/{tight,loose}/threads:<threads>           (bytes_per_second)
# Both read every byte of a working set of <bytes> once per pass, with the threads pinned to
# the first CPUs of node 0 (kernel_bench uses dense placement, likwid the domain's first CPUs).
# Prints one line per (round, threads, variant) with both rates and shuffle / likwid, measured
# back to back, then the median ratio over the rounds (rounds tame the noise of a shared machine).
#
# Usage: bench/shuffle_vs_likwid.sh [build dir (build/release)] [bytes (2147483648)] [likwid seconds (2)] [rounds (3)]
# Build first: cmake --build build/release --target kernel_bench
set -euo pipefail

build=${1:-build/release}
bytes=${2:-2147483648}
seconds=${3:-2}
rounds=${4:-3}
bench="$build/bench/kernel_bench"
[[ -x "$bench" ]] || { echo "shuffle_vs_likwid: $bench not found (build the kernel_bench target)" >&2; exit 1; }
command -v likwid-bench >/dev/null || { echo "shuffle_vs_likwid: likwid-bench is not installed (package likwid)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "shuffle_vs_likwid: python3 is needed to read kernel_bench's JSON" >&2; exit 1; }

rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
printf '%-6s %-8s %-22s %14s %14s %8s\n' round threads variant likwid_MB/s shuffle_MB/s ratio
for round in $(seq 1 "$rounds"); do
for threads in 1 2; do
  likwid_output=$(likwid-bench -t load -w "M0:$((bytes / 1024))kB:$threads" -s "$seconds" 2>&1) || {
    echo "shuffle_vs_likwid: likwid-bench failed:" >&2
    echo "$likwid_output" >&2
    exit 1
  }
  likwid=$(awk '/^MByte\/s:/ {print $2}' <<<"$likwid_output")
  for variant in ring/tight ring/loose; do
    shuffle=$(NUMATWIN_SHUFFLE_BYTES=$bytes "$bench" --benchmark_filter="^shuffle/$variant/threads:$threads/" \
                --benchmark_format=json 2>/dev/null |
              python3 -c 'import json, sys
b = json.load(sys.stdin)["benchmarks"]
if not b or b[0].get("error_occurred"): sys.exit("kernel_bench: " + (b[0].get("error_message", "") if b else "no benchmark ran"))
print("%.2f" % (b[0]["bytes_per_second"] / 1e6))')
    ratio=$(python3 -c "print('%.3f' % ($shuffle / $likwid))")
    printf '%-6s %-8s %-22s %14s %14s %8s\n' "$round" "$threads" "shuffle/$variant" "$likwid" "$shuffle" "$ratio" | tee -a "$rows"
  done
done
done
echo "over $rounds rounds: median of each side and of the per-round ratio; best (highest) of each side and their ratio:"
python3 - "$rows" <<'PY'
import statistics, sys
groups = {}
for line in open(sys.argv[1]):
    _, threads, variant, likwid, shuffle, ratio = line.split()
    groups.setdefault((int(threads), variant), []).append((float(likwid), float(shuffle), float(ratio)))
for (threads, variant), values in sorted(groups.items()):
    best_likwid, best_shuffle = max(v[0] for v in values), max(v[1] for v in values)
    print("%-3d %-20s median: likwid %8.1f shuffle %8.1f MB/s ratio %.3f | best: likwid %8.1f shuffle %8.1f MB/s ratio %.3f" % (
        threads, variant, statistics.median(v[0] for v in values), statistics.median(v[1] for v in values),
        statistics.median(v[2] for v in values), best_likwid, best_shuffle, best_shuffle / best_likwid))
PY
