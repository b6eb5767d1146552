#!/usr/bin/env python3
"""Write each shipped topology's /core_data_path from topologies/cores/data-paths.json.

Usage: tools/ecm/apply-data-paths.py [--check]
  --check: write nothing; exit 1 when a shipped file's data path differs from the table's.

The table holds one entry per microarchitecture, each figure marked sourced or assumed, with its
sources (see its description). Which microarchitecture a machine has is the MACHINES map below
(the Opteron's K8 and the EPYC 9354P's Zen 4 have no llvm-mca -mcpu of their own in LLVM 14, so
the operator costs' -mcpu cannot name them). The topology keeps the figures and a source line
that names the table entry and which of its figures are assumed.
"""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "lib"))
from topology_member import set_member  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = ROOT / "topologies" / "cores" / "data-paths.json"

MACHINES = {
    "nehalem-ex-4s": "nehalem",
    "nehalem-ex-4s-4link": "nehalem",
    "nehalem-ex-8s": "nehalem",
    "xeon-e7520-4s": "nehalem",
    "sandybridge-e5-2630-2s": "sandybridge",
    "xeon-e7-4880v2-4s": "ivybridge",
    "xeon-e7-8880v2-8s": "ivybridge",
    "sgi-uv300h-32s": "haswell",
    "xeon-e7-4850v4-4s": "broadwell",
    "skylake-4114-2s": "skylake-avx512",
    "spr-cxl-2s": "sapphirerapids",
    "xeon-platinum-8480-2s": "sapphirerapids",
    "xeon-max-9462-2s": "sapphirerapids",
    "xeon-gold-6548y-2s": "sapphirerapids",
    "epyc-9354p-nps1": "znver4",
    "epyc-9354p-nps4": "znver4",
    "opteron-8220-8s-twisted-ladder": "k8",
}

FIGURES = ["loads_per_cycle", "stores_per_cycle", "l2_to_l1_bytes_per_cycle", "l2_l1_duplex",
           "l3_to_l2_bytes_per_cycle", "l3_l2_duplex", "overlap.l1", "overlap.l2_l1", "overlap.l3_l2",
           "overlap.memory"]


def data_path(key, entry):
    path = {"microarchitecture": key}
    for field in ["loads_per_cycle", "stores_per_cycle", "l2_to_l1_bytes_per_cycle", "l2_l1_duplex"]:
        path[field] = entry[field]
    has_l3 = entry.get("l3_to_l2_bytes_per_cycle") is not None
    if has_l3:
        path["l3_to_l2_bytes_per_cycle"] = entry["l3_to_l2_bytes_per_cycle"]
        path["l3_l2_duplex"] = entry["l3_l2_duplex"]
    overlap = {"l1": entry["overlap"]["l1"], "l2_l1": entry["overlap"]["l2_l1"]}
    if has_l3:
        overlap["l3_l2"] = entry["overlap"]["l3_l2"]
    overlap["memory"] = entry["overlap"]["memory"]
    path["overlap"] = overlap
    basis = entry.get("basis", {})
    assumed = [f for f in FIGURES if basis.get(f) == "assumed" and (has_l3 or "l3" not in f)]
    sourced = [f for f in FIGURES if basis.get(f) == "sourced" and (has_l3 or "l3" not in f)]
    text = f"topologies/cores/data-paths.json, entry {key} (its sources and notes name where each figure comes from): "
    text += "sourced: " + (", ".join(sourced) if sourced else "none")
    text += "; assumed: " + (", ".join(assumed) if assumed else "none")
    path["source"] = text
    return path


def main():
    check = "--check" in sys.argv[1:]
    table = json.loads(TABLE.read_text())["microarchitectures"]
    differ = []
    for machine, key in MACHINES.items():
        file = ROOT / "topologies" / f"{machine}.json"
        want = data_path(key, table[key])
        if json.loads(file.read_text()).get("core_data_path") == want:
            continue
        differ.append(machine)
        if not check:
            set_member(file, "core_data_path", want)
    if check and differ:
        print("data paths differ from the table: " + ", ".join(differ), file=sys.stderr)
        return 1
    print(("differ: " if check else "written: ") + (", ".join(differ) if differ else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
