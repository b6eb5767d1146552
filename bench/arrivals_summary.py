#!/usr/bin/env python3
"""Summarises `numatwin validate allocbench --arrivals RATE --out FILE` results of several passes:
per (rate, allocator) the median over the files of each figure, with the smallest..largest, as a
Markdown table (docs/allocators.md).

usage: arrivals_summary.py FILE...
"""
import json
import statistics
import sys
from collections import defaultdict


def figures(r):
    lat, rss = r["latency_s"], r["rss_bytes"]
    mib = 1048576.0
    return {"p50 ms": lat["p50"] * 1e3, "p90 ms": lat["p90"] * 1e3, "p99 ms": lat["p99"] * 1e3, "max ms": lat["max"] * 1e3,
            "mean queue ms": r["mean_queueing_s"] * 1e3, "queries/s": r["queries_per_second"],
            "RSS before MiB": rss["before"] / mib, "peak MiB": rss["peak"] / mib,
            "end of queries MiB": rss["end_of_queries"] / mib,
            "threads exited MiB": rss["after_workers_exit"] / mib, "after idle MiB": rss["after_idle"] / mib,
            "returned %": 100 * r["returned_share"]}


def main(paths):
    runs = defaultdict(list)
    order = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for r in json.load(f):
                if not r["verified"]:
                    sys.exit(f"{path}: {r['allocator']} not verified")
                key = (r["rate_per_second"], r["allocator"])
                if key not in runs:
                    order.append(key)
                runs[key].append(figures(r))
    columns = list(next(iter(runs.values()))[0].keys())
    for part in (columns[:6], columns[6:]):  # latency, then memory
        print("| rate /s | allocator | passes | " + " | ".join(part) + " |")
        print("|---|---|---|" + "---|" * len(part))
        for key in sorted(order, key=lambda k: (k[0], order.index(k))):
            cells = []
            for c in part:
                values = [f[c] for f in runs[key]]
                cells.append(f"{statistics.median(values):.1f} ({min(values):.1f}..{max(values):.1f})" if len(values) > 1
                             else f"{values[0]:.1f}")
            print(f"| {key[0]:g} | {key[1]} | {len(runs[key])} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
