#!/usr/bin/env bash
# Gives every shipped machine the operator costs its core's microarchitecture derives
# (numatwin topo derive-costs; model/core_cost_rules.hpp has the rule). Run from the repository
# root with the numatwin to use: tools/loop-cycles/apply-to-shipped.sh build/release/cli/numatwin
# Which -mcpu stands for which machine (tools/loop-cycles/README.md): Xeon 7500 / E7520
# (Nehalem-EX) nehalem; E5-2630 sandybridge; E7 v2 ivybridge; E7 v3 (UV 300H) haswell; E7 v4
# broadwell; Silver 4114 skylake-avx512; Xeon 8480, Max 9462, 6548Y (Emerald Rapids) and the CXL
# machine sapphirerapids; EPYC 9354P (Zen 4, which LLVM 14 does not know) znver3. The Opteron
# 8220 (K8) has no scheduling model in llvm-mca: it keeps the defaults.
set -euo pipefail
numatwin=${1:?usage: $0 path/to/numatwin}
table=topologies/cores/loop-cycles-llvm-mca-14.json
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
while read -r machine core; do
  "$numatwin" topo derive-costs --topology "topologies/$machine.json" --microarchitecture "$core" --loop-cycles "$table" \
    --out "$scratch/$machine.json"
  # Only the operator_costs member changes: it replaces the file's own (if any), the rest of the
  # hand-written file stays as it is.
  python3 - "topologies/$machine.json" "$scratch/$machine.json" <<'PY'
import json, sys
target, derived = sys.argv[1], sys.argv[2]
text = open(target).read()
costs = json.load(open(derived))["operator_costs"]
document = json.loads(text)
if "operator_costs" in document:
    sys.exit(f"{target} already has operator_costs: edit them with numatwin topo derive-costs --out instead")
block = json.dumps(costs, indent=2).replace("\n", "\n  ")
end = text.rstrip().rfind("}")
body = text[:end].rstrip()
with open(target + ".tmp", "w") as out:
    out.write(body + ",\n  \"operator_costs\": " + block + "\n}\n")
json.load(open(target + ".tmp"))
import os
os.replace(target + ".tmp", target)
PY
done <<'LIST'
nehalem-ex-4s nehalem
nehalem-ex-4s-4link nehalem
nehalem-ex-8s nehalem
xeon-e7520-4s nehalem
sandybridge-e5-2630-2s sandybridge
xeon-e7-4880v2-4s ivybridge
xeon-e7-8880v2-8s ivybridge
sgi-uv300h-32s haswell
xeon-e7-4850v4-4s broadwell
skylake-4114-2s skylake-avx512
xeon-platinum-8480-2s sapphirerapids
xeon-max-9462-2s sapphirerapids
xeon-gold-6548y-2s sapphirerapids
spr-cxl-2s sapphirerapids
epyc-9354p-nps1 znver3
epyc-9354p-nps4 znver3
LIST
