#!/usr/bin/env python3
"""Figures for issue 19's closing note (docs/adaptive.md): runs `numatwin adaptive` and prints
Markdown tables.

1. every shipped scenario (scenarios/*.json) on its machine (the file's `topology`, else
   xeon-e7-4880v2-4s): queries/s with the placer off/on x stealing allow/deny/adaptive;
2. the placer's decisions in the placer-on runs, with the CPU imbalance of the decision's socket
   pair measured in the timeline (the second before the decision, the mean of the 5 s after it is done);
3. the stealing calibration on the study's three machines;
4. per-phase task-seconds per query (global dictionary, remote merges, value-id mapping, ...) of the
   partitioning-overhead scenarios for 1, 2, 4, 8 parts, aggregations also for 1e3, 1e5, 1e6 groups.

usage: adaptive_closing_figures.py [--numatwin PATH] [--scenarios DIR]
Prints the wall time of every run to stderr; a run over 60 s is reported there (shorten with --duration).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

DEFAULT_TOPOLOGY = "xeon-e7-4880v2-4s"
STUDY_MACHINES = ["xeon-e7-4880v2-4s", "xeon-e7-8880v2-8s", "sgi-uv300h-32s"]
STEALING = ["allow", "deny", "adaptive"]
PARTS = [1, 2, 4, 8]
GROUPS = [1000, 100000, 1000000]
GIB = 1024.0 ** 3


def run(binary, args, log):
    cmd = [binary, "adaptive"] + args + ["--json"]
    start = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall_s = time.monotonic() - start
    log.append(wall_s)
    note = "  (OVER 60 s: shorten with --duration)" if wall_s > 60 else ""
    print(f"{wall_s:7.2f} s  {' '.join(cmd[1:])}{note}", file=sys.stderr)
    return json.loads(out)


def fmt(x, digits=1):
    return "—" if x is None else f"{x:.{digits}f}"


def pair_imbalance(timeline, sockets, a, b, begin_s, end_s):
    """Mean over the timeline bins inside [begin_s, end_s) of |cpu(a) - cpu(b)|; None if no bin."""
    if a is None or b is None:
        return None
    ia, ib = sockets.index(a), sockets.index(b)
    vals = [abs(p["socket_cpu"][ia] - p["socket_cpu"][ib]) for p in timeline
            if p["begin_s"] >= begin_s - 1e-9 and p["end_s"] <= end_s + 1e-9]
    return sum(vals) / len(vals) if vals else None


def scenario_tables(binary, scen_dir, log):
    files = sorted(glob.glob(os.path.join(scen_dir, "*.json")))
    odd = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
        name = os.path.splitext(os.path.basename(path))[0]
        topo = spec.get("topology") or DEFAULT_TOPOLOGY
        res = {}
        for placer in ["off", "on"]:
            for st in STEALING:
                res[placer, st] = run(binary, ["--topology", topo, "--scenario", path,
                                               "--placer", placer, "--stealing", st, "--timeline-bin", "1"], log)
        d0 = res["off", "deny"]
        print(f"#### {name} ({topo}, {d0['duration_s']:g} s, seed {d0['seed']}, stealing threshold "
              f"{fmt(res['off', 'adaptive']['stealing_threshold_gbps_per_task'], 2)} GB/s per task)\n")
        print(f"`numatwin adaptive --topology {topo} --scenario {path} --placer off|on "
              f"--stealing allow|deny|adaptive --timeline-bin 1 --json` (`.queries_per_s`)\n")
        print("| placement | allow | deny | adaptive |")
        print("|---|---|---|---|")
        for placer, label in [("off", "static (placer off)"), ("on", "adaptive (placer on)")]:
            q = [res[placer, st]["queries_per_s"] for st in STEALING]
            print(f"| {label} | " + " | ".join(fmt(x) for x in q) + " |")
            allow, deny, adapt = q
            if adapt < min(allow, deny) - 1e-9:
                odd.append(f"{name}, placer {placer}: adaptive stealing {adapt:.1f} q/s below both allow "
                           f"{allow:.1f} and deny {deny:.1f} ({100 * (adapt / min(allow, deny) - 1):+.1f} % "
                           f"against the worse, {100 * (adapt / max(allow, deny) - 1):+.1f} % against the better)")
        for st in STEALING:
            if res["on", st]["queries_per_s"] < res["off", st]["queries_per_s"] - 1e-9:
                odd.append(f"{name}, stealing {st}: placer on {res['on', st]['queries_per_s']:.1f} q/s below "
                           f"placer off {res['off', st]['queries_per_s']:.1f}")
        print()
        for st in STEALING:
            r = res["on", st]
            dec = r["placer_decisions"]
            if not dec:
                print(f"Placer on, stealing {st}: no decision.\n")
                continue
            print(f"Placer on, stealing {st}: {len(dec)} decisions (I = CPU imbalance of the from/to pair: "
                  f"recorded before, predicted after; measured = |cpu(from) - cpu(to)| in the timeline over the "
                  f"second before the decision (the placer's period) -> the mean over the 5 s after it is done)\n")
            print("| decided s | done s | action | table (group) | from -> to | GiB copied | I before -> predicted | measured |")
            print("|---|---|---|---|---|---|---|---|")
            for x in dec:
                tbl = x["table"] + (f" ({x['group']})" if x.get("group") else "")
                before = pair_imbalance(r["timeline"], r["sockets"], x["from"], x["to"],
                                        x["decided_s"] - 1, x["decided_s"])
                done = x["done_s"]  # None: still running at the end of the run
                after = None if done is None else pair_imbalance(r["timeline"], r["sockets"], x["from"], x["to"],
                                                                 done, done + 5)
                ib, ia = x.get("imbalance_before"), x.get("imbalance_after_predicted")
                print(f"| {x['decided_s']:g} | {'not done' if done is None else f'{done:.1f}'} | {x['action']} | {tbl} | "
                      f"{x['from'] or '—'} -> {x['to'] or '—'} | {x['bytes_copied'] / GIB:.3f} | "
                      f"{fmt(ib if ib is None else 100 * ib, 0)} % -> {fmt(ia if ia is None else 100 * ia, 0)} % | "
                      f"{fmt(before if before is None else 100 * before, 0)} % -> "
                      f"{fmt(after if after is None else 100 * after, 0)} % |")
                what = f"{name}, placer on, stealing {st}: {x['action']} {tbl} {x['from']} -> {x['to']} at {x['decided_s']:g} s"
                if before is not None and after is not None and after > before + 0.01:
                    odd.append(f"{what}: measured pair imbalance {100 * before:.0f} % -> {100 * after:.0f} % (up)")
                if ib is not None and ia is not None and x["action"] != "merge" and ib - ia < 0.02:
                    odd.append(f"{what}: predicted gain {100 * (ib - ia):.2f} points ({100 * ib:.1f} % -> {100 * ia:.1f} %)")
            print()
    return odd


def calibration(binary, log):
    print("`numatwin adaptive --topology T --calibrate --json`\n")
    print("| machine | threshold (GB/s per task) | summary |")
    print("|---|---|---|")
    for topo in STUDY_MACHINES:
        c = run(binary, ["--topology", topo, "--calibrate"], log)
        print(f"| {topo} | {fmt(c['threshold_gbps_per_task'], 2)} | {c['summary']} |")
    print()


def phases_row(d):
    """Mean over the query types of each phase's task-seconds per query, and the remote share of its bytes."""
    qts = d["query_types"]
    out = {}
    for ph in ["scan", "materialise", "dictionary", "merge", "mapping"]:
        tsq = sum(q["phases"][ph]["task_seconds_per_query"] for q in qts) / len(qts)
        b = sum(q["phases"][ph]["bytes"] for q in qts)
        rb = sum(q["phases"][ph]["remote_bytes"] for q in qts)
        out[ph] = (tsq, rb / b if b > 0 else None)
    return out


def cell(p):
    tsq, share = p
    if tsq == 0:
        return "0"
    return f"{tsq:.3g} ({100 * share:.0f} %)"


def overhead(binary, scen_dir, log):
    topo = DEFAULT_TOPOLOGY
    print("Task-seconds per query by phase (mean over the query types), in brackets the share of the phase's "
          "bytes read from another socket than the worker's; placer off, stealing denied (the files'), 30 s.\n")
    header = ("| workload | parts | q/s | ratio to 1 part | scan | materialise / results | "
              "dictionary | merge | mapping |")
    rule = "|---|---|---|---|---|---|---|---|---|"
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        src = os.path.join(scen_dir, "partitioning-overhead-aggregation.json")
        with open(src, encoding="utf-8") as f:
            agg = json.load(f)
        for g in GROUPS:
            agg["query_types"][0]["groups"] = g
            path = os.path.join(tmp, f"aggregation-groups-{g}.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(agg, f)
            rows.append((f"aggregation b, {g:g} groups", path))
        for w, label in [("join", "join c, not co-partitioned"), ("join-copartitioned", "join c, co-partitioned"),
                         ("scan", "scan a (two-phase)")]:
            rows.append((label, os.path.join(scen_dir, f"partitioning-overhead-{w}.json")))
        print(f"`numatwin adaptive --topology {topo} --scenario FILE --parts 1|2|4|8 --json`; aggregation files: "
              f"`{src}` with `.query_types[0].groups` set to 1000, 100000, 1000000.\n")
        print(header)
        print(rule)
        for label, path in rows:
            base = None
            for k in PARTS:
                d = run(binary, ["--topology", topo, "--scenario", path, "--parts", str(k)], log)
                q = d["queries_per_s"]
                base = q if k == 1 else base
                p = phases_row(d)
                print(f"| {label} | {k} | {q:.1f} | {q / base:.2f} | " +
                      " | ".join(cell(p[ph]) for ph in ["scan", "materialise", "dictionary", "merge", "mapping"]) + " |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--numatwin", default="build/release/cli/numatwin")
    ap.add_argument("--scenarios", default="scenarios")
    a = ap.parse_args()
    log = []
    print("### 1-2. Throughput (queries/s) by placement and stealing; the placer's decisions\n")
    odd = scenario_tables(a.numatwin, a.scenarios, log)
    print("### 3. Stealing thresholds calibrated on the study's three machines\n")
    calibration(a.numatwin, log)
    print("### 4. What each overhead costs as the parts and groups grow\n")
    overhead(a.numatwin, a.scenarios, log)
    print("### Flagged by the script\n")
    print("\n".join(f"- {o}" for o in odd) if odd else "- nothing")
    print(f"\n{len(log)} runs, {sum(log):.0f} s of wall time in all, the longest {max(log):.1f} s.")


if __name__ == "__main__":
    main()
