#!/usr/bin/env python3
"""Did the advice hold? For a few workloads, asks `numatwin advise` for the best configuration on
this machine's (calibrated) topology, then runs both it and the OS default (unpinned threads,
first touch by one loader thread) for real with `numatwin validate run`, in one go, and prints
predicted and measured speedups side by side.

usage: bench/advice_check.py NUMATWIN TOPOLOGY [--repetitions N] [--scale S] [--json OUT]
                             [--allocating --rounds R]
--allocating: the allocation-heavy kernels instead (MEDIAN --allocation per-group, the chained hash
join --allocation per-bucket, the sizes of docs/allocators.md); the advised run also takes advise's
--allocator and --huge-pages, the default runs glibc with the host's pages (--huge-pages as
transparent_hugepage/enabled says: madvise here). --rounds R alternates default and advised R times
(each a `validate run` of --repetitions), so that a shared machine's drift falls on both.
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


def allocating_workloads(scale):
    r = lambda x: f"{x * scale:.6g}"
    return [
        ("median per group", ["--workload", "median", "--allocation", "per-group", "--records", r(2e7), "--groups", r(2e5)]),
        ("hash join per bucket", ["--workload", "hash-join", "--allocation", "per-bucket", "--records", r(2e7),
                                  "--build-records", r(2e6), "--groups", r(2e6)]),
    ]


def host_huge_pages():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            line = f.read()
        chosen = line[line.index("[") + 1:line.index("]")]
        return {"always": "on", "never": "off"}.get(chosen, "madvise")
    except (OSError, ValueError):
        return "madvise"


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
    if o.get("allocation", "preallocated") != "preallocated":
        out += ["--allocator", o["allocator"]]
    if "huge_pages" in o:
        out += ["--huge-pages", o["huge_pages"]]
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("numatwin")
    p.add_argument("topology")
    p.add_argument("--repetitions", type=int, default=5)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--json")
    p.add_argument("--allocating", action="store_true")
    p.add_argument("--rounds", type=int, default=1)
    a = p.parse_args()
    rows = []
    for name, data in (allocating_workloads(a.scale) if a.allocating else workloads(a.scale)):
        advice = json.loads(run(a.numatwin, "advise", "--topology", a.topology, *data, "--json"))
        best, default = advice["recommendations"][0], advice["default"]
        if a.allocating:
            default["options"]["huge_pages"] = host_huge_pages()
        runs = {"advised": [], "default": []}
        for _ in range(a.rounds):
            for label, row in (("default", default), ("advised", best)):
                # The workload kind comes from the advice (shuffle advice may switch to migration).
                spec = [x for x in data]
                spec[spec.index("--workload") + 1] = row["options"]["workload"]
                command = ["validate", "run", "--topology", a.topology, *spec, *options_of(row), "--repetitions",
                           str(a.repetitions), "--json"]
                report = json.loads(run(a.numatwin, *command))
                d = report["kernels"][0]["details"]
                runs[label].append({"s": d["measured_s"], "repetition_s": d["repetition_s"], "verified": d["verified"],
                                    "command": "numatwin " + " ".join(command)})
                print(f"{name}: {label} {d['measured_s']:.4g} s: numatwin {' '.join(command)}", file=sys.stderr)
        measured = {}
        for label, rs in runs.items():
            medians = sorted(x["s"] for x in rs)
            reps = [t for x in rs for t in x["repetition_s"]]
            measured[label] = {"s": medians[len(medians) // 2], "repetition_s": reps, "rounds_s": [x["s"] for x in rs],
                               "verified": all(x["verified"] for x in rs), "command": rs[0]["command"]}
        spread = max((max(m["repetition_s"]) - min(m["repetition_s"])) / m["s"] for m in measured.values())
        speedup = measured["default"]["s"] / measured["advised"]["s"]
        rows.append({"workload": name, "advised": best["configuration"], "default": default["configuration"],
                     "predicted_speedup": best["speedup_vs_default"], "advised_s": measured["advised"]["s"],
                     "default_s": measured["default"]["s"], "measured_speedup": speedup, "noise": max(0.03, spread),
                     "held": speedup >= 1.0 - max(0.03, spread),
                     "verified": measured["advised"]["verified"] and measured["default"]["verified"],
                     "advised_rounds_s": measured["advised"]["rounds_s"], "default_rounds_s": measured["default"]["rounds_s"],
                     "advised_command": measured["advised"]["command"], "default_command": measured["default"]["command"]})
    print(f"{'workload':20} {'advised configuration':58} {'pred.':>6} {'advised s':>10} {'default s':>10} {'meas.':>6}  held")
    for r in rows:
        print(f"{r['workload']:20} {r['advised'][:58]:58} {r['predicted_speedup']:6.2f} {r['advised_s']:10.4g} "
              f"{r['default_s']:10.4g} {r['measured_speedup']:6.2f}  {'yes' if r['held'] else 'NO'}"
              f" (noise {100 * r['noise']:.1f} %)")
    for r in rows:
        if len(r["advised_rounds_s"]) > 1:
            print(f"{r['workload']}: rounds default {r['default_rounds_s']} advised {r['advised_rounds_s']}")
    print("held: the advised configuration measured no slower than the default beyond the noise "
          "(max(3 %, the repetitions' spread))")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
