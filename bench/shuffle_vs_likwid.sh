#!/usr/bin/env bash
# The shuffle kernel's streaming phase against likwid-bench's load kernel, at the same thread
# counts (1 and 2) and the same working set, on memory domain M0 (the first NUMA node):
#   likwid-bench -t load -w M0:<bytes/1024>kB:<threads> -s <seconds>   (MByte/s, 1e6 bytes/s)
#   kernel_bench shuffle/ring/{tight,loose}/threads:<threads>           (bytes_per_second)
# Both read every byte of a working set of <bytes> once per pass, with the threads pinned to
# the first CPUs of node 0 (kernel_bench uses dense placement, likwid the domain's first CPUs).
# Prints one line per (threads, variant) with both rates and shuffle / likwid.
#
# Usage: bench/shuffle_vs_likwid.sh [build dir (build/release)] [bytes (2147483648)] [likwid seconds (2)]
# Build first: cmake --build build/release --target kernel_bench
set -euo pipefail

build=${1:-build/release}
bytes=${2:-2147483648}
seconds=${3:-2}
bench="$build/bench/kernel_bench"
[[ -x "$bench" ]] || { echo "shuffle_vs_likwid: $bench not found (build the kernel_bench target)" >&2; exit 1; }
command -v likwid-bench >/dev/null || { echo "shuffle_vs_likwid: likwid-bench is not installed (package likwid)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "shuffle_vs_likwid: python3 is needed to read kernel_bench's JSON" >&2; exit 1; }

printf '%-8s %-22s %14s %14s %8s\n' threads variant likwid_MB/s shuffle_MB/s ratio
for threads in 1 2; do
  likwid_output=$(likwid-bench -t load -w "M0:$((bytes / 1024))kB:$threads" -s "$seconds" 2>&1) || {
    echo "shuffle_vs_likwid: likwid-bench failed:" >&2
    echo "$likwid_output" >&2
    exit 1
  }
  likwid=$(awk '/^MByte\/s:/ {print $2}' <<<"$likwid_output")
  for variant in ring/tight ring/loose; do
    shuffle=$(NUMATWIN_SHUFFLE_BYTES=$bytes "$bench" --benchmark_filter="^shuffle/$variant/threads:$threads\$" \
                --benchmark_format=json 2>/dev/null |
              python3 -c 'import json, sys
b = json.load(sys.stdin)["benchmarks"]
if not b or b[0].get("error_occurred"): sys.exit("kernel_bench: " + (b[0].get("error_message", "") if b else "no benchmark ran"))
print("%.2f" % (b[0]["bytes_per_second"] / 1e6))')
    ratio=$(python3 -c "print('%.3f' % ($shuffle / $likwid))")
    printf '%-8s %-22s %14s %14s %8s\n' "$threads" "shuffle/$variant" "$likwid" "$shuffle" "$ratio"
  done
done
