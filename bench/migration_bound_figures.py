#!/usr/bin/env python3
"""Migration figures for issue 18 item 4 (docs/shuffle-schedules-figures.md): runs
`numatwin schedule --workload migration|migration-copy --json` on every shipped topology
(topologies/*.json) with all threads (one per core, dense) and prints a Markdown table per workload:
the ring's predicted time tight and loose, the designed (blocked) order's, D (tight with state and
re-binding free, the same for every order), R (busiest resource's total load over its bandwidth),
the bound max(D, R), the ring's and the chosen order's gap to it, and which order runs.

usage: migration_bound_figures.py [--numatwin PATH] [--topologies DIR] [--only NAME,...] [--workloads W,...]
Prints each run's command and wall time to stderr.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time


def run(binary, topology, workload):
    cmd = [binary, "schedule", "--topology", topology, "--workload", workload, "--json"]
    start = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    print(f"{time.monotonic() - start:8.2f} s  {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
    return json.loads(out)


def ms(x):
    return "-" if x is None else f"{1e3 * x:.4f}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numatwin", default=os.path.join(root, "build", "release", "cli", "numatwin"))
    parser.add_argument("--topologies", default=os.path.join(root, "topologies"))
    parser.add_argument("--only", default="", help="comma-separated topology names (default: every file)")
    parser.add_argument("--workloads", default="migration,migration-copy")
    args = parser.parse_args()
    names = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(args.topologies, "*.json")))
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    for workload in args.workloads.split(","):
        print(f"### {workload}: predicted ms (`numatwin schedule --topology T --workload {workload} --json`, all threads, dense)\n")
        print("| topology | threads | ring tight | ring loose | designed tight | designed loose | D | R | bound | ring gap | "
              "chosen gap | re-binds ring / fewest | runs |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for n in names:
            d = run(args.numatwin, os.path.join(args.topologies, n + ".json"), workload)
            print(f"| {n} | {d['threads']} | {ms(d['ring_tight_s'])} | {ms(d['ring_loose_s'])} | {ms(d['designed_tight_s'])} | "
                  f"{ms(d['designed_loose_s'])} | {ms(d['data_s'])} | {ms(d['resource_s'])} | {ms(d['bound_s'])} | "
                  f"{100 * d['tight_gap']:.3f} % | {100 * d['chosen_gap']:.3f} % | {d['ring_binds']} / {d['fewest_binds']} | "
                  f"{'designed' if d['designed_kept'] else 'ring'} |")
        print()


if __name__ == "__main__":
    main()
