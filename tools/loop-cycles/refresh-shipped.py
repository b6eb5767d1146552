#!/usr/bin/env python3
"""Re-derive the shipped machines' operator costs from the loop-cycle table, in place.

Usage: tools/loop-cycles/refresh-shipped.py path/to/numatwin [--check]

apply-to-shipped.sh writes a machine's first operator_costs block; this replaces an existing one
with what `numatwin topo derive-costs` gives now (a new derived cost, a changed rule), keeping the
costs it keeps (measured, calibrated, transferred) and the rest of the hand-written file as it is.
--check: write nothing, exit 1 when a file's block differs from what the rule gives.
"""
import json
import pathlib
import subprocess
import sys
import tempfile

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
KEY = '\n  "operator_costs": '


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
            text = file.read_text()
            if json.loads(text).get("operator_costs") == want:
                continue
            differ.append(machine)
            if check:
                continue
            start = text.index(KEY) + len(KEY)
            _, length = json.JSONDecoder().raw_decode(text[start:])
            block = json.dumps(want, indent=2, ensure_ascii=False).replace("\n", "\n  ")
            new_text = text[:start] + block + text[start + length:]
            if json.loads(new_text) != {**json.loads(text), "operator_costs": want}:
                sys.exit(f"{file}: the block could not be replaced without changing the rest")
            tmp = file.with_suffix(".json.tmp")
            tmp.write_text(new_text)
            tmp.replace(file)
    if check and differ:
        print("operator costs differ from the rule: " + ", ".join(differ), file=sys.stderr)
        return 1
    print(("differ: " if check else "written: ") + (", ".join(differ) if differ else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
