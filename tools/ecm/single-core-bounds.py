#!/usr/bin/env python3
"""Per shipped machine: one core reading its own memory, Little's law against the cache path.

Usage: tools/ecm/single-core-bounds.py
For the first node with cores of each topology with a /core_data_path: Little's law's
miss_buffers_per_core x 64 B / local_latency_ns, and model/ecm.hpp's in-cache bound
1 / (t_serial + t_mem) for a read (scalar 8-byte loads), t_mem = 1 / memory_read_bandwidth; the
lesser is what the model gives one thread alone (before queueing). Idle figures, no solver: a
reading aid for docs/operator-costs.md, not a prediction command (numatwin predict is).
"""
import glob
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]

for f in sorted(glob.glob(str(ROOT / "topologies" / "*.json"))):
    d = json.load(open(f))
    p = d.get("core_data_path")
    if not p:
        continue
    n = next(x for x in d["nodes"] if x.get("cores", 0) > 0)
    hz = n["frequency_ghz"] * 1e9
    terms = [(1 / (8 * p["loads_per_cycle"]), "l1"), (1 / p["l2_to_l1_bytes_per_cycle"], "l2_l1")]
    if p.get("l3_to_l2_bytes_per_cycle"):
        terms.append((1 / p["l3_to_l2_bytes_per_cycle"], "l3_l2"))
    serial = sum(v for v, k in terms if not p["overlap"].get(k, False))
    overlapping = max([v for v, k in terms if p["overlap"].get(k, False)], default=0.0)
    if p["overlap"]["memory"]:
        overlapping, serial = max(overlapping, serial), 0.0
    path = 1 / (serial / hz + 1 / (n["memory_read_bandwidth_gbps"] * 1e9))
    if overlapping > 0:
        path = min(path, hz / overlapping)
    little = n["miss_buffers_per_core"] * 64 / (n["local_latency_ns"] * 1e-9)
    print(f"{d['name']:31} {p['microarchitecture']:15} Little {little / 1e9:6.2f} GB/s  cache path {path / 1e9:6.2f} GB/s"
          f"  {'cache path binds' if path < little else ''}")
