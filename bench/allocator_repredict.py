#!/usr/bin/env python3
"""Predicts again the rows of a table written by bench/allocator_table.sh on another topology (e.g.
the same one with a measured /tlb block), keeping the measured times: what a model change does to the
errors without running the kernels again. `on` rows are predicted as `validate run` does with THP in
madvise mode (--huge-pages madvise).

usage: bench/allocator_repredict.py NUMATWIN TOPOLOGY TABLE.md THREADS
"""
import json
import statistics
import subprocess
import sys

SIZES = {
    "median": ["--workload", "median", "--allocation", "per-group", "--records", "2e7", "--groups", "2e5"],
    "hash-join": ["--workload", "hash-join", "--allocation", "per-bucket", "--records", "2e7", "--build-records", "2e6",
                  "--groups", "2e6"],
}


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    binary, topology, table, threads = sys.argv[1:]
    errors = {k: [] for k in SIZES}
    print("| kernel | allocator | huge pages | measured s | predicted s | error |")
    print("|---|---|---|---|---|---|")
    with open(table) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 7 or cells[0] not in SIZES:
                continue
            kernel, allocator, huge, measured = cells[0], cells[1], cells[2], float(cells[3])
            r = subprocess.run([binary, "predict", "--topology", topology, *SIZES[kernel], "--threads", threads,
                                "--allocator", allocator, "--huge-pages", "madvise" if huge == "on" else "off", "--json"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"{table}: predict failed for {kernel} {allocator} {huge}: {r.stderr.strip()}")
            predicted = json.loads(r.stdout)["time_s"]
            error = (predicted - measured) / measured
            errors[kernel].append(abs(error))
            print(f"| {kernel} | {allocator} | {huge} | {measured:.3f} | {predicted:.3f} | {100 * error:+.1f} % |")
    every = [e for v in errors.values() for e in v]
    if not every:
        sys.exit(f"{table}: no rows of bench/allocator_table.sh")
    print(f"median |error| {100 * statistics.median(every):.1f} % (" +
          ", ".join(f"{k} {100 * statistics.median(v):.1f} %" for k, v in errors.items() if v) + ")")


if __name__ == "__main__":
    main()
