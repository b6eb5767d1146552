#!/usr/bin/env python3
"""Write the shipped machines' operator costs from the loop-cycle table, in place.

Usage: tools/loop-cycles/refresh-shipped.py path/to/numatwin [--check]

Per machine, `numatwin topo derive-costs` with its core's table entry; the file's operator_costs
block becomes what it gives (the first time, or after a new derived cost or a changed rule),
keeping the costs it keeps (measured, calibrated, transferred) and the rest of the hand-written
file as it is. The Opteron is not listed: llvm-mca has no K8 model, so it keeps the defaults.
--check: write nothing, exit 1 when a file's block differs from what the rule gives.
"""
import json
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "lib"))
from topology_member import set_member  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
TABLE = ROOT / "topologies" / "cores" / "loop-cycles-llvm-mca-14.json"
MACHINES = {
    "nehalem-ex-4s": "nehalem", "nehalem-ex-4s-4link": "nehalem", "nehalem-ex-8s": "nehalem",
    "xeon-e7520-4s": "nehalem", "sandybridge-e5-2630-2s": "sandybridge", "xeon-e7-4880v2-4s": "ivybridge",
    "xeon-e7-8880v2-8s": "ivybridge", "sgi-uv300h-32s": "haswell", "xeon-e7-4850v4-4s": "broadwell",
    "skylake-4114-2s": "skylake-avx512", "xeon-platinum-8480-2s": "sapphirerapids",
    "xeon-max-9462-2s": "sapphirerapids", "xeon-gold-6548y-2s": "sapphirerapids", "spr-cxl-2s": "sapphirerapids",
    "epyc-9354p-nps1": "znver3", "epyc-9354p-nps4": "znver3",
}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    numatwin = sys.argv[1]
    check = "--check" in sys.argv[2:]
    differ = []
    with tempfile.TemporaryDirectory() as scratch:
        for machine, core in MACHINES.items():
            file = ROOT / "topologies" / f"{machine}.json"
            out = pathlib.Path(scratch) / f"{machine}.json"
            # Relative paths from the root: the costs' sources name the table as the files do.
            subprocess.run([str(pathlib.Path(numatwin).resolve()), "topo", "derive-costs", "--topology",
                            str(file.relative_to(ROOT)), "--microarchitecture", core, "--loop-cycles",
                            str(TABLE.relative_to(ROOT)), "--out", str(out)],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
            want = json.loads(out.read_text())["operator_costs"]
            if json.loads(file.read_text()).get("operator_costs") == want:
                continue
            differ.append(machine)
            if not check:
                set_member(file, "operator_costs", want)
    if check and differ:
        print("operator costs differ from the rule: " + ", ".join(differ), file=sys.stderr)
        return 1
    print(("differ: " if check else "written: ") + (", ".join(differ) if differ else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
