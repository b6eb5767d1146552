#!/usr/bin/env python3
"""Figures for issue 18's closing note (docs/shuffle-schedules-figures.md): runs `numatwin schedule`
on every shipped topology (topologies/*.json) with all threads (one per core, the default placement)
and prints Markdown tables:

1. predicted GB/s shuffled of naive, ring, coordinated random and the designed order, each tight
   and loose (the fluid model; a loose run follows the same per-thread orders without step
   barriers), with whether the design was kept (faster than the ring, tight) and why not;
2. the design: the time `numatwin schedule` measured for the search alone (`design_seconds`, one
   run, on whatever machine runs the script), swaps kept / tried, and the estimate against the
   ring's and the bound.

Machines in --tight-only (default sgi-uv300h-32s: 576 threads, whose loose ring alone ran for more
than 300 s without finishing, because a loose shuffle has up to threads^2 events) are predicted tight
only, with `numatwin predict --algorithm naive|ring|random|scheduled --sync tight` (scheduled: the
order `predict` designs, the same search and seed as `schedule`), and naive loose (one event per
piece in step: cheap); their other loose figures and design time are left out ("-").

usage: schedule_closing_figures.py [--numatwin PATH] [--topologies DIR] [--only NAME,...] [--bytes B]
                                   [--tight-only NAME,...]
Prints each run's command and wall time to stderr.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time

ORDERS = ["naive", "ring", "random", "designed"]


def run(binary, topology, extra, log):
    cmd = [binary, "schedule", "--topology", topology, "--json"] + extra
    start = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall_s = time.monotonic() - start
    log.append((topology, wall_s))
    print(f"{wall_s:8.2f} s  {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
    return json.loads(out)


def predict_gbps(binary, topology, algorithm, sync, extra, log):
    cmd = [binary, "predict", "--topology", topology, "--workload", "shuffle", "--algorithm", algorithm, "--sync", sync,
           "--interval-samples", "0", "--json"] + extra
    start = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall_s = time.monotonic() - start
    log.append((topology, wall_s))
    print(f"{wall_s:8.2f} s  {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
    d = json.loads(out)
    return d["input_gbps"], d["threads"]


def tight_only(binary, topology, extra, log):
    """The shape of `schedule --json` from predict runs: tight for every order, loose for naive only."""
    orders = []
    threads = 0
    for name, algorithm in [("naive", "naive"), ("ring", "ring"), ("random", "random"), ("designed", "scheduled")]:
        tight, threads = predict_gbps(binary, topology, algorithm, "tight", extra, log)
        loose = predict_gbps(binary, topology, algorithm, "loose", extra, log)[0] if name == "naive" else None
        orders.append({"order": name, "tight_gbps": tight, "loose_gbps": loose})
    ring, designed = orders[1]["tight_gbps"], orders[3]["tight_gbps"]
    return {"threads": threads, "orders": orders, "designed_kept": designed > ring * (1.0 + 1e-9),
            "schedule": "tight only (predict): loose ring, random and designed not simulated (threads^2 events)",
            "design_seconds": None, "swaps_kept": None, "swaps_tried": None,
            "ring_estimate_s": None, "design_estimate_s": None, "bound_s": None}


def num(x, spec):
    return "-" if x is None else format(x, spec)


def order_row(d, name):
    for o in d["orders"]:
        if o["order"] == name or (name == "designed" and o["order"].startswith("designed")):
            return o
    raise KeyError(name)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numatwin", default=os.path.join(root, "build", "release", "cli", "numatwin"))
    parser.add_argument("--topologies", default=os.path.join(root, "topologies"))
    parser.add_argument("--only", default="", help="comma-separated topology names (default: every file)")
    parser.add_argument("--bytes", default="", help="bytes shuffled (default: numatwin's, 12.8e9)")
    parser.add_argument("--tight-only", default="sgi-uv300h-32s", help="comma-separated topologies predicted tight only")
    args = parser.parse_args()

    names = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(args.topologies, "*.json")))
    if args.only:
        wanted = args.only.split(",")
        names = [n for n in names if n in wanted]
    extra = ["--bytes", args.bytes] if args.bytes else []
    log = []
    tight = set(filter(None, args.tight_only.split(",")))
    results = {}
    for n in names:
        path = os.path.join(args.topologies, n + ".json")
        results[n] = tight_only(args.numatwin, path, extra, log) if n in tight else run(args.numatwin, path, extra, log)

    cmd = "numatwin schedule --topology T --json" + (f" --bytes {args.bytes}" if args.bytes else "")
    print(f"### Predicted GB/s shuffled, tight / loose (`{cmd}`, all threads, dense)\n")
    print("| topology | threads | naive | ring | random | designed | designed kept | designed vs ring (tight) | schedule |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in names:
        d = results[n]
        cells = []
        for o in ORDERS:
            r = order_row(d, o)
            cells.append(f"{r['tight_gbps']:.2f} / {num(r['loose_gbps'], '.2f')}")
        ring = order_row(d, "ring")["tight_gbps"]
        designed = order_row(d, "designed")["tight_gbps"]
        gain = f"{100.0 * (designed / ring - 1.0):+.1f} %" if ring > 0 else "-"
        verdict = d["schedule"].replace("|", "/")
        print(f"| {n} | {d['threads']} | " + " | ".join(cells) +
              f" | {'yes' if d['designed_kept'] else 'no'} | {gain} | {verdict} |")
    print()
    print(f"### The design (`{cmd}`: `design_seconds`, `swaps_kept`, `swaps_tried`, estimates)\n")
    print("| topology | threads | design s | swaps kept / tried | ring estimate s | designed estimate s | bound s | whole command s |")
    print("|---|---|---|---|---|---|---|---|")
    walls = {}
    for topology, wall_s in log:
        walls[topology] = walls.get(topology, 0.0) + wall_s
    for n in names:
        d = results[n]
        print(f"| {n} | {d['threads']} | {num(d['design_seconds'], '.3g')} | {num(d['swaps_kept'], 'd')} / {num(d['swaps_tried'], 'd')} | "
              f"{num(d['ring_estimate_s'], '.4g')} | {num(d['design_estimate_s'], '.4g')} | {num(d['bound_s'], '.4g')} | "
              f"{walls[os.path.join(args.topologies, n + '.json')]:.1f} |")


if __name__ == "__main__":
    main()
