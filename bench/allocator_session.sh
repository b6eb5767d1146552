#!/bin/bash
# One calibration and the allocator x huge-pages tables of issue 16, as session 34 ran them
# (docs/allocators.md, "2026-11-28, session 34"): the quick validation suite for the machine's
# figures, the operator costs measured again at full length (their LLC sweep over 20 s), the TLB
# benchmark three times (the run with the median 4 KiB walk kept), `validate allocbench
# --calibrate` for the allocator costs, then bench/allocator_table.sh at 2 threads (9 repetitions)
# and 1 thread (5). Nothing is fitted to the kernels' times. About 6 minutes on a 2-vCPU VM; run
# it on a quiet machine (other builds and tests move every figure).
# Usage: bench/allocator_session.sh NUMATWIN DIR
# Writes into DIR: suite.json, suite.topology.json, suite-costs.topology.json, tlb1..3.json,
# suite-tlb.topology.json, alloc-cal.json (the calibration), table-2t.md, table-1t.md, times.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 NUMATWIN DIR" >&2
  exit 2
fi
numatwin=$(realpath "$1")
bench=$(dirname "$(realpath "$0")")
mkdir -p "$2"
cd "$2"
stamp() { echo "$(date -u +%T) $1" >> times; }
: > times
stamp "suite"
"$numatwin" validate suite --quick --no-fit --out suite.json > suite.log 2>&1
stamp "operator costs"
"$numatwin" validate measure --costs-only --topology suite.topology.json --out-topology suite-costs.topology.json > costs.log 2>&1
stamp "tlb"
for i in 1 2 3; do "$numatwin" validate measure --tlb-only --out tlb$i.json > tlb$i.log 2>&1; done
python3 - <<'PY'
import json

def tlb_block(o):
    if isinstance(o, dict):
        if 'topology_tlb' in o:
            return o['topology_tlb']
        o = list(o.values())
    if isinstance(o, list):
        for v in o:
            x = tlb_block(v)
            if x:
                return x
    return None

blocks = sorted((tlb_block(json.load(open('tlb%d.json' % i))) for i in (1, 2, 3)), key=lambda b: b['page_walk_ns_4k'])
t = json.load(open('suite-costs.topology.json'))
t['tlb'] = blocks[1]  # the run with the median 4 KiB walk
json.dump(t, open('suite-tlb.topology.json', 'w'), indent=1)
print('4 KiB walks', [round(b['page_walk_ns_4k'], 1) for b in blocks], 'ns; kept', round(blocks[1]['page_walk_ns_4k'], 1))
print('llc_usable_share: quick suite', round(json.load(open('suite.topology.json'))['operator_costs']['llc_usable_share']['value'], 3),
      'full-length costs', round(t['operator_costs']['llc_usable_share']['value'], 3))
PY
stamp "allocbench --calibrate"
"$numatwin" validate allocbench --calibrate suite-tlb.topology.json --out alloc-cal.json --threads 2 --mib-per-thread 64 \
  --rounds 2 --repetitions 5 > cal.log 2>&1
stamp "table, 2 threads"
sh "$bench/allocator_table.sh" "$numatwin" alloc-cal.json 9 2 > table-2t.md
stamp "table, 1 thread"
sh "$bench/allocator_table.sh" "$numatwin" alloc-cal.json 5 1 > table-1t.md
stamp "done"
for n in 2 1; do
  python3 - "table-${n}t.md" "$n" <<'PY'
import statistics, sys
rows = [l.split('|') for l in open(sys.argv[1]) if l.startswith('| median') or l.startswith('| hash-join')]
err = lambda r: abs(float(r[7].strip().rstrip('%').strip()))
print('%s thread(s): median |error| %.1f %% over %d rows (MEDIAN %.1f %%, join %.1f %%)' % (
    sys.argv[2], statistics.median(err(r) for r in rows), len(rows),
    statistics.median(err(r) for r in rows if r[1].strip() == 'median'),
    statistics.median(err(r) for r in rows if r[1].strip() == 'hash-join')))
PY
done
