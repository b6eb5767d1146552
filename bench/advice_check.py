#!/usr/bin/env python3
"""Did the advice hold? For a few workloads, asks `numatwin advise` for the best configuration on
this machine's (calibrated) topology, then runs both it and the OS default (unpinned threads,
first touch by one loader thread) for real with `numatwin validate run`, in one go, and prints
predicted and measured speedups side by side.

usage: bench/advice_check.py NUMATWIN TOPOLOGY [--repetitions N] [--scale S] [--json OUT]
Use a release build of numatwin; TOPOLOGY is this machine's calibrated topology
(numatwin validate discover / measure / calibrate).
"""
import argparse
import json
import subprocess
import sys


def workloads(scale):
    r = lambda x: f"{x * scale:.6g}"
    return [
        ("count, 1e6 groups", ["--workload", "count", "--records", r(2e7), "--groups", r(1e6)]),
        ("median, 1e5 groups", ["--workload", "median", "--records", r(1e7), "--groups", "1e5"]),
        ("hash join", ["--workload", "hash-join", "--records", r(2e7), "--build-records", r(2e6), "--groups", r(2e6)]),
        ("shuffle, 1 GiB", ["--workload", "shuffle", "--bytes", r(1073741824)]),
    ]


def run(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"advice_check: {' '.join(args[:3])}...: {r.stderr.strip()}")
    return r.stdout


def options_of(row):
    o = row["options"]
    out = ["--threads", str(o["threads"]), "--placement", o["placement"], "--memory-policy", o["memory_policy"]]
    if o["workload"] in ("shuffle", "migration", "migration-copy", "sort-merge-join", "partitioned-aggregation"):
        out += ["--algorithm", o["algorithm"], "--sync", o["sync"]]
    if o["workload"] == "partitioned-aggregation":
        out += ["--strategy", o["strategy"]]
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("numatwin")
    p.add_argument("topology")
    p.add_argument("--repetitions", type=int, default=5)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--json")
    a = p.parse_args()
    rows = []
    for name, data in workloads(a.scale):
        advice = json.loads(run(a.numatwin, "advise", "--topology", a.topology, *data, "--json"))
        best, default = advice["recommendations"][0], advice["default"]
        measured = {}
        for label, row in (("advised", best), ("default", default)):
            # The workload kind comes from the advice (shuffle advice may switch to migration).
            spec = [x for x in data]
            spec[spec.index("--workload") + 1] = row["options"]["workload"]
            report = json.loads(run(a.numatwin, "validate", "run", "--topology", a.topology, *spec, *options_of(row),
                                    "--repetitions", str(a.repetitions), "--json"))
            d = report["kernels"][0]["details"]
            measured[label] = {"s": d["measured_s"], "repetition_s": d["repetition_s"], "verified": d["verified"]}
        spread = max((max(m["repetition_s"]) - min(m["repetition_s"])) / m["s"] for m in measured.values())
        speedup = measured["default"]["s"] / measured["advised"]["s"]
        rows.append({"workload": name, "advised": best["configuration"], "default": default["configuration"],
                     "predicted_speedup": best["speedup_vs_default"], "advised_s": measured["advised"]["s"],
                     "default_s": measured["default"]["s"], "measured_speedup": speedup, "noise": max(0.03, spread),
                     "held": speedup >= 1.0 - max(0.03, spread),
                     "verified": measured["advised"]["verified"] and measured["default"]["verified"]})
    print(f"{'workload':20} {'advised configuration':58} {'pred.':>6} {'advised s':>10} {'default s':>10} {'meas.':>6}  held")
    for r in rows:
        print(f"{r['workload']:20} {r['advised'][:58]:58} {r['predicted_speedup']:6.2f} {r['advised_s']:10.4g} "
              f"{r['default_s']:10.4g} {r['measured_speedup']:6.2f}  {'yes' if r['held'] else 'NO'}"
              f" (noise {100 * r['noise']:.1f} %)")
    print("held: the advised configuration measured no slower than the default beyond the noise "
          "(max(3 %, the repetitions' spread))")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
