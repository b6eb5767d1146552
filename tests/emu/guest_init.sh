#!/bin/sh
# /init of the emulated NUMA guest (tests/emu/run_guests.sh builds the initramfs): mounts the
# pseudo file systems, runs `numatwin validate discover` and `numatwin validate selfcheck` with
# the expected SLIT (qn_dist=row-major, comma-separated) and link graph (qn_links=0-1,1-2,...)
# from the kernel command line, prints markers the host script reads, and powers off.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /tmp && mount -t tmpfs tmpfs /tmp
echo "QN: init at uptime $(cut -d' ' -f1 /proc/uptime)s"
nn=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
echo "QN: kernel $(uname -r) sees $nn NUMA node(s), $(grep -c ^processor /proc/cpuinfo) CPU(s)"
dist=$(sed -n 's/.*qn_dist=\([0-9,]*\).*/\1/p' /proc/cmdline)
links=$(sed -n 's/.*qn_links=\([0-9,-]*\).*/\1/p' /proc/cmdline)
echo "$dist" | tr ',' '\n' | awk -v n="$nn" '{printf "%s%s", $1, (NR % n ? " " : "\n")}' > /tmp/expected_dist
echo "QN: --- numatwin validate discover"
numatwin validate discover --out /tmp/skeleton.json
echo "QN: DISCOVER_EXIT=$?"
echo "QN: --- numatwin validate selfcheck"
numatwin validate selfcheck --expect-distances /tmp/expected_dist --expect-links "$links"
echo "QN: SELFCHECK_EXIT=$? at uptime $(cut -d' ' -f1 /proc/uptime)s"
if grep -q qn_measure=1 /proc/cmdline; then
  # The measurement's mechanics across nodes (timings under TCG mean nothing): every point of
  # every (cpu node, memory node) pair must report all its pages on the memory node.
  echo "QN: --- numatwin validate measure --quick"
  numatwin validate measure --quick --no-likwid --seconds-per-point 0.02 --out /tmp/measure.json >/tmp/measure.txt 2>/tmp/measure.err
  rc=$?
  points=$(grep -c '"fraction_on_memory_node"' /tmp/measure.json)
  misplaced=$(grep '"fraction_on_memory_node"' /tmp/measure.json | grep -vc ': 1.0')
  echo "QN: measure: $points points, $misplaced with pages off their memory node"
  [ "$rc" = 0 ] && [ "$points" -gt 0 ] && [ "$misplaced" = 0 ]
  echo "QN: MEASURE_EXIT=$? at uptime $(cut -d' ' -f1 /proc/uptime)s"
  head -n 30 /tmp/measure.txt
  tail -n 3 /tmp/measure.err
fi
if grep -q qn_kernels=1 /proc/cmdline; then
  # The real kernels across nodes (validate run): pages land where the memory policy says and
  # threads run where the placement says. Timings under TCG mean nothing; results must verify.
  echo "QN: --- numatwin validate run (kernels across nodes)"
  ok=0
  check() {  # check LABEL PATTERN FILE: the run's text output must contain PATTERN
    if grep -q "$2" "$3"; then echo "QN: kernels: $1: ok"; else echo "QN: kernels: $1: FAIL ($2 not in the output)"; ok=1; fi
  }
  run() {  # run NAME ARGS...: one validate run (one repetition unless ARGS say otherwise), output to /tmp/NAME.txt
    name=$1; shift
    case " $* " in *" --repetitions "*) reps="" ;; *) reps="--repetitions 1" ;; esac
    # shellcheck disable=SC2086
    if ! numatwin validate run --topology /tmp/skeleton.json $reps --threads "$nn" --placement sparse "$@" \
      >"/tmp/$name.txt" 2>"/tmp/$name.err"; then
      echo "QN: kernels: $name: FAIL (exit status)"; cat "/tmp/$name.err"; ok=1
    fi
    cat "/tmp/$name.txt"
  }
  cpus=$(seq -s, 0 $((nn - 1)))
  run shuffle --workload shuffle --algorithm ring --sync tight --bytes 4e6
  check "shuffle verified" "verified: yes" /tmp/shuffle.txt
  check "shuffle threads on one CPU per node" "threads ran on CPUs $cpus\$" /tmp/shuffle.txt
  check "shuffle buffers on every node" "buffers: .*n0: 2[45][.0-9]*%, n1: 2[45][.0-9]*%, n2: 2[45][.0-9]*%, n3: 2[45][.0-9]*%" /tmp/shuffle.txt
  run migration --workload migration --algorithm ring --sync tight --bytes 4e6
  check "migration verified" "verified: yes" /tmp/migration.txt
  check "migration threads back home" "threads ran on CPUs $cpus\$" /tmp/migration.txt
  run interleave --workload count --records 2e5 --groups 1000 --memory-policy interleave
  check "interleave verified" "verified: yes" /tmp/interleave.txt
  check "interleave input on every node" "input: .*n0: 2[45][.0-9]*%, n1: 2[45][.0-9]*%, n2: 2[45][.0-9]*%, n3: 2[45][.0-9]*%" /tmp/interleave.txt
  run bind --workload hash-join --records 2e5 --build-records 2e4 --groups 2e4 --memory-policy bind:n2
  check "bind verified" "verified: yes" /tmp/bind.txt
  check "bind puts the table on n2" "hash table: .*pages n2: 100%" /tmp/bind.txt
  run radix --workload hash-join --join-algorithm radix --records 2e5 --build-records 2e4 --groups 2e4 --memory-policy interleave
  check "radix join verified" "verified: yes" /tmp/radix.txt
  check "radix partitions interleaved" "R partitions: .*n0: 2[45][.0-9]*%, n1: 2[45][.0-9]*%, n2: 2[45][.0-9]*%, n3: 2[45][.0-9]*%" /tmp/radix.txt
  run loader --workload count --records 2e5 --groups 1000 --memory-policy first-touch:loader
  check "loader first touch on the loader's node" "input: .*pages n0: 100%" /tmp/loader.txt
  # Automatic NUMA balancing switched on for one run (the guest boots with it off): a loader
  # put all input on n0, the workers on every node read their chunks over and over, and the
  # kernel's hinting faults move pages towards them; off again for the next run.
  # The run must outlast the kernel's scan delay (1 s, numa_balancing_scan_delay_ms) and a few scan
  # periods: 12 repetitions took 0.84 s in a debug-build guest run (no scan at all, no migration),
  # as docs/numa-balancing.md's model says; 60 take several seconds.
  run balancing --workload count --records 4e6 --groups 1000 --memory-policy first-touch:loader --repetitions 60 \
    --huge-pages off --numa-balancing on
  check "balancing on: the kernel migrated pages during the run" "balancing on (1): .* [1-9][0-9]* pages migrated" /tmp/balancing.txt
  check "balancing switched back off" "^0\$" /proc/sys/kernel/numa_balancing
  run no-balancing --workload count --records 4e6 --groups 1000 --memory-policy first-touch:loader --repetitions 12 \
    --huge-pages off --numa-balancing off
  check "balancing off: no hint faults" "balancing off (0): .* 0 hint faults (0 local), 0 pages migrated" /tmp/no-balancing.txt
  run workers --workload count --records 2e5 --groups 1000 --memory-policy first-touch
  check "workers first touch on every node" "input: .*n0: 2[45][.0-9]*%, n1: 2[45][.0-9]*%, n2: 2[45][.0-9]*%, n3: 2[45][.0-9]*%" /tmp/workers.txt
  run subarray --workload subarray --records 4e5 --chunks 8 --threads-per-chunk 2 --memory-policy first-touch
  check "subarray verified" "verified: yes" /tmp/subarray.txt
  check "subarray shares on their loaders' nodes" "array: .*n0: 2[45][.0-9]*%, n1: 2[45][.0-9]*%, n2: 2[45][.0-9]*%, n3: 2[45][.0-9]*%" /tmp/subarray.txt
  echo "QN: KERNELS_EXIT=$ok at uptime $(cut -d' ' -f1 /proc/uptime)s"
fi
if grep -q qn_schedule=1 /proc/cmdline; then
  # A shuffle order designed for this guest's machine (numatwin schedule), run for real through
  # libnumatwin-shuffle next to naive, ring and random: every consumer's checksum must equal the
  # sum of the pieces the schedule gives it (each piece read once, by the right thread), one
  # thread on each node's CPU, and each producer's buffer on its node (1/n of the pages each).
  echo "QN: --- numatwin schedule, validate run --schedule"
  sok=0
  numatwin schedule --topology /tmp/skeleton.json --threads "$nn" --placement sparse --bytes 4e6 --out /tmp/schedule.json \
    >/tmp/schedule.txt 2>&1 || sok=1
  cat /tmp/schedule.txt
  numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$nn" --placement sparse --workload shuffle \
    --bytes 4e6 --schedule /tmp/schedule.json >/tmp/sched-run.txt 2>/tmp/sched-run.err || sok=1
  cat /tmp/sched-run.txt
  tail -n 3 /tmp/sched-run.err
  rows=$(grep -cE '^(naive|ring|random|schedule file) .* yes$' /tmp/sched-run.txt)
  if [ "$rows" = 4 ]; then echo "QN: schedule: 4 orders verified: ok"; else echo "QN: schedule: FAIL ($rows of 4 orders verified)"; sok=1; fi
  awk '/^shuffle-scheduled/{f=1} f&&/threads ran on CPUs/{print; exit}' /tmp/sched-run.txt >/tmp/sched-cpus
  if grep -q "threads ran on CPUs $(seq -s, 0 $((nn - 1)))\$" /tmp/sched-cpus; then echo "QN: schedule: one thread per node: ok"
  else echo "QN: schedule: FAIL (threads: $(cat /tmp/sched-cpus))"; sok=1; fi
  awk '/^shuffle-scheduled/{f=1} f&&/buffers:/{print; exit}' /tmp/sched-run.txt >/tmp/sched-buf
  share=$(awk -v n="$nn" 'BEGIN { s = 100 / n; printf (s == int(s) ? "%d" : "%g"), s }')
  i=0
  while [ "$i" -lt "$nn" ]; do
    grep -q "n$i: $share%" /tmp/sched-buf || { echo "QN: schedule: FAIL (buffer pages of n$i not $share %: $(cat /tmp/sched-buf))"; sok=1; }
    i=$((i + 1))
  done
  [ "$sok" = 0 ] && echo "QN: schedule: each node holds its producer's buffer ($share % each): ok"
  # The same for a migration order (schedule --workload migration|migration-copy --out): run
  # through the library's migration runner next to naive, ring and random; verified means every
  # consumer's checksum is the sum of its pieces (each read once, by the right thread), the
  # migrated state agrees, and every piece was read on its producer's node (the CPU the
  # consumer had moved to, per step).
  for mw in migration migration-copy; do
    numatwin schedule --topology /tmp/skeleton.json --workload "$mw" --threads "$nn" --placement sparse --bytes 4e6 \
      --state-bytes 4096 --out "/tmp/$mw.json" >"/tmp/$mw-schedule.txt" 2>&1 || sok=1
    tail -n 2 "/tmp/$mw-schedule.txt"
    numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$nn" --placement sparse --workload "$mw" \
      --bytes 4e6 --state-bytes 4096 --schedule "/tmp/$mw.json" >"/tmp/$mw-run.txt" 2>"/tmp/$mw-run.err" || sok=1
    tail -n 8 "/tmp/$mw-run.txt"
    tail -n 3 "/tmp/$mw-run.err"
    rows=$(grep -cE '^(naive|ring|random|schedule file) .* yes$' "/tmp/$mw-run.txt")
    onnode=$(grep -c "every piece was read on its producer's node" "/tmp/$mw-run.txt")
    if [ "$rows" = 4 ] && [ "$onnode" = 4 ]; then echo "QN: schedule: $mw: 4 orders verified, every piece read on its producer's node: ok"
    else echo "QN: schedule: $mw: FAIL ($rows of 4 orders verified, $onnode of 4 checked on the producers' nodes)"; sok=1; fi
  done
  # Every shipped machine's designed order (run_guests.sh designs them on the host, one thread per
  # node with CPUs, sparse): this guest runs those of 2-4 threads (4 nodes) or 5-8 (8 nodes) with one
  # thread on each of its first nodes, next to naive, ring and random; each must be verified (every
  # consumer's checksum = the sum of the pieces the file gives it: each piece read once, by the right
  # thread), with one thread per node and each producer's buffer on its own node.
  shipped=0
  for f in /schedules/*.json; do
    [ -e "$f" ] || continue
    t=$(sed -n 's/^ *"threads": *\([0-9]*\).*/\1/p' "$f" | head -n 1)
    [ -n "$t" ] && [ "$t" -le "$nn" ] || continue
    [ "$nn" -le 4 ] || [ "$t" -gt 4 ] || continue
    name=$(basename "$f" .json)
    fok=0
    numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$t" --placement sparse --workload shuffle \
      --bytes 4e6 --schedule "$f" >"/tmp/shipped.txt" 2>"/tmp/shipped.err" || fok=1
    rows=$(grep -cE '^(naive|ring|random|schedule file) .* yes$' /tmp/shipped.txt)
    [ "$rows" = 4 ] || fok=1
    awk '/^shuffle-scheduled/{f=1} f&&/threads ran on CPUs/{print; exit}' /tmp/shipped.txt >/tmp/shipped-cpus
    grep -q "threads ran on CPUs $(seq -s, 0 $((t - 1)))\$" /tmp/shipped-cpus || fok=1
    awk '/^shuffle-scheduled/{f=1} f&&/buffers:/{print; exit}' /tmp/shipped.txt >/tmp/shipped-buf
    share=$(awk -v n="$t" 'BEGIN { s = 100 / n; printf (s == int(s) ? "%d" : "%g"), s }')
    i=0
    while [ "$i" -lt "$t" ]; do
      grep -q "n$i: $share%" /tmp/shipped-buf || fok=1
      i=$((i + 1))
    done
    if [ "$fok" = 0 ]; then echo "QN: schedule: shipped $name ($t threads): 4 orders verified, one thread per node, each buffer on its node: ok"
    else
      echo "QN: schedule: shipped $name ($t threads): FAIL ($rows of 4 verified; $(cat /tmp/shipped-cpus); $(cat /tmp/shipped-buf))"
      tail -n 3 /tmp/shipped.err
      sok=1
    fi
    shipped=$((shipped + 1))
  done
  if [ "$shipped" = 0 ]; then echo "QN: schedule: FAIL (no shipped machine's schedule ran)"; sok=1; fi
  echo "QN: --- $shipped shipped machines' schedules run"
  echo "QN: SCHEDULE_EXIT=$sok at uptime $(cut -d' ' -f1 /proc/uptime)s"
fi
# refused PREFIX LABEL POLICY PATTERN: `validate run --weighted-interleave-by kernel` with POLICY
# must fail before any work with PATTERN in its error; prints the verdict, returns 1 when not.
refused() {
  numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$(grep -c '^processor' /proc/cpuinfo)" \
    --placement sparse --workload count --records 2e5 --groups 1000 --huge-pages off --weighted-interleave-by kernel \
    --memory-policy "$3" >/tmp/refused.txt 2>/tmp/refused.err
  rc=$?
  tail -n 1 /tmp/refused.err
  if [ "$rc" != 0 ] && grep -q "$4" /tmp/refused.err; then echo "QN: $1: $2: ok"; return 0; fi
  echo "QN: $1: FAIL ($2: exit $rc)"
  return 1
}
cpuless=$(sed -n 's/.*qn_cpuless=\([0-9,]*\).*/\1/p' /proc/cmdline)
if [ -n "$cpuless" ]; then
  # A node with memory and no CPUs (a CXL expander, HBM in flat mode): discovery keeps it as a
  # memory-only node, data bound to it lands there page by page, interleave spreads over it,
  # and weighted interleave (placed by the validator) gives each node its weight's share.
  echo "QN: --- CPU-less node $cpuless"
  ok=0
  cl() {  # cl LABEL PATTERN FILE
    if grep -q "$2" "$3"; then echo "QN: cpuless: $1: ok"; else echo "QN: cpuless: $1: FAIL ($2 not in $3)"; ok=1; fi
  }
  numatwin topo show /tmp/skeleton.json >/tmp/skeleton.txt 2>&1
  cl "discovered without cores" "^n$cpuless  *node  *0 " /tmp/skeleton.txt
  cl "linked to its nearest socket only" "^n0->n$cpuless " /tmp/skeleton.txt
  cpu_nodes=$(grep -c '^processor' /proc/cpuinfo)
  numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$cpu_nodes" --placement sparse \
    --workload count --records 2e5 --groups 1000 --memory-policy "bind:n$cpuless" >/tmp/cl-bind.txt 2>/tmp/cl-bind.err || ok=1
  cat /tmp/cl-bind.txt /tmp/cl-bind.err
  cl "bind verified" "verified: yes" /tmp/cl-bind.txt
  cl "bind puts the input on the CPU-less node" "input: .*pages n$cpuless: 100%" /tmp/cl-bind.txt
  numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$cpu_nodes" --placement sparse \
    --workload count --records 2e5 --groups 1000 --memory-policy interleave >/tmp/cl-inter.txt 2>/tmp/cl-inter.err || ok=1
  cat /tmp/cl-inter.txt /tmp/cl-inter.err
  cl "interleave verified" "verified: yes" /tmp/cl-inter.txt
  cl "interleave spreads over all three" "input: .*n0: 3[234][.0-9]*%, n1: 3[234][.0-9]*%, n2: 3[234][.0-9]*%" /tmp/cl-inter.txt
  # Weighted interleave, placed page by page by the validator (on any kernel; the kernel's own
  # MPOL_WEIGHTED_INTERLEAVE is checked below, where the guest's kernel has it): one vector 1:3 puts a quarter of the input on n0 and three
  # quarters on the CPU-less node; per-node vectors (n0's threads 1:3 to n0 and the CPU-less
  # node, n1's 1:1 to n1 and it) give each worker's half its own split: 12.5 %, 25 %, 62.5 %.
  numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$cpu_nodes" --placement sparse \
    --workload count --records 2e6 --groups 1000 --huge-pages off \
    --memory-policy "weighted-interleave:n0=1,n$cpuless=3" >/tmp/cl-w.txt 2>/tmp/cl-w.err || ok=1
  cat /tmp/cl-w.txt /tmp/cl-w.err
  cl "weighted interleave verified" "verified: yes" /tmp/cl-w.txt
  cl "weighted interleave 1:3 puts 25 % / 75 % of the input" "input: .*pages n0: 2[45][.0-9]*%, n$cpuless: 7[45][.0-9]*%" /tmp/cl-w.txt
  numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$cpu_nodes" --placement sparse \
    --workload count --records 2e6 --groups 1000 --huge-pages off \
    --memory-policy "weighted-interleave:n0[n0=1,n$cpuless=3];n1[n1=1,n$cpuless=1]" >/tmp/cl-wn.txt 2>/tmp/cl-wn.err || ok=1
  cat /tmp/cl-wn.txt /tmp/cl-wn.err
  cl "per-node weighted interleave verified" "verified: yes" /tmp/cl-wn.txt
  cl "per-node weighted interleave: each worker's half by its node's vector" \
    "input: .*pages n0: 12\.[45][0-9]*%, n1: 2[45][.0-9]*%, n$cpuless: 62\.[45][0-9]*%" /tmp/cl-wn.txt
  if [ ! -d /sys/kernel/mm/mempolicy/weighted_interleave ]; then
    # A kernel before 6.9: the kernel's own policy is refused before any work, with the reason.
    refused cpuless "the kernel's weighted interleave on kernel $(uname -r) is refused with the reason" \
      "weighted-interleave:n0=1,n$cpuless=3" "has no weighted interleave (MPOL_WEIGHTED_INTERLEAVE came with Linux 6.9)" || ok=1
  fi
  echo "QN: CPULESS_EXIT=$ok at uptime $(cut -d' ' -f1 /proc/uptime)s"
fi
if grep -q qn_wi_kernel=1 /proc/cmdline; then
  # The kernel's own MPOL_WEIGHTED_INTERLEAVE (Linux 6.9 and later; this guest boots Debian's
  # bookworm-backports kernel): the validator sets /sys/kernel/mm/mempolicy/weighted_interleave/
  # nodeN for the run, mbinds the data, and puts the weights back. 1:3 and 3:1 over n0 and the
  # CPU-less node must land 25 % / 75 % and 75 % / 25 % of the input, +-1 %, page by page (move_pages);
  # a per-node vector, which Linux cannot express, must be refused with the reason.
  wdir=/sys/kernel/mm/mempolicy/weighted_interleave
  echo "QN: --- the kernel's weighted interleave, kernel $(uname -r)"
  wok=0
  wi() {  # wi LABEL PATTERN FILE
    if grep -q "$2" "$3"; then echo "QN: wi-kernel: $1: ok"; else echo "QN: wi-kernel: $1: FAIL ($2 not in $3)"; wok=1; fi
  }
  if [ ! -d "$wdir" ]; then
    echo "QN: wi-kernel: FAIL ($wdir is missing in kernel $(uname -r))"
    wok=1
  else
    cl_node=$(echo "$cpuless" | cut -d, -f1)
    before="$(cat "$wdir/node0") $(cat "$wdir/node$cl_node")"
    echo "QN: wi-kernel: sysfs weights before: node0 node$cl_node = $before; $(ls "$wdir" | tr '\n' ' ')"
    cpu_nodes=$(grep -c '^processor' /proc/cpuinfo)
    for split in "1 3 2[45] 7[45]" "3 1 7[45] 2[45]"; do
      set -- $split
      f=/tmp/wik-$1-$2.txt
      numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$cpu_nodes" --placement sparse \
        --workload count --records 2e6 --groups 1000 --huge-pages off --weighted-interleave-by kernel \
        --memory-policy "weighted-interleave:n0=$1,n$cl_node=$2" >"$f" 2>/tmp/wik.err || { echo "QN: wi-kernel: $1:$2: FAIL (exit status)"; wok=1; }
      cat "$f"
      tail -n 3 /tmp/wik.err
      wi "$1:$2 verified" "verified: yes" "$f"
      wi "$1:$2 by the kernel's policy" "weighted interleave: the kernel's MPOL_WEIGHTED_INTERLEAVE (mbind), sysfs .*restored after the run" "$f"
      wi "$1:$2 puts the input's pages by weight (+-1 %)" "input: .*pages n0: $3[.0-9]*%, n$cl_node: $4[.0-9]*%" "$f"
      after="$(cat "$wdir/node0") $(cat "$wdir/node$cl_node")"
      if [ "$after" = "$before" ]; then echo "QN: wi-kernel: $1:$2 sysfs weights restored ($after): ok"
      else echo "QN: wi-kernel: $1:$2: FAIL (sysfs weights $after after the run, $before before)"; wok=1; fi
    done
    # Another kernel's data by the same policy: the partitioned aggregation's input.
    f=/tmp/wik-pa.txt
    numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$cpu_nodes" --placement sparse \
      --workload partitioned-aggregation --records 2e6 --groups 1000 --huge-pages off --weighted-interleave-by kernel \
      --memory-policy "weighted-interleave:n0=1,n$cl_node=3" >"$f" 2>/tmp/wik.err || { echo "QN: wi-kernel: aggregation: FAIL (exit status)"; wok=1; }
    grep -E "^  (input|tables|verified|weighted interleave):" "$f"
    tail -n 3 /tmp/wik.err
    wi "the partitioned aggregation's input 1:3 by the kernel's policy (+-1 %)" "input: .*pages n0: 2[45][.0-9]*%, n$cl_node: 7[45][.0-9]*%" "$f"
    refused wi-kernel "a per-node vector is refused with the reason" \
      "weighted-interleave:n0[n0=1,n$cl_node=3];n1[n1=1,n$cl_node=1]" "one system-wide weight vector" || wok=1
  fi
  echo "QN: WIKERNEL_EXIT=$wok at uptime $(cut -d' ' -f1 /proc/uptime)s"
fi
if grep -q qn_sortmerge=1 /proc/cmdline; then
  # The whole sort-merge join (P-MPSM, all four phases) run for real across the nodes, one worker
  # per node, in the ring and in the designed order: the join must verify (matches and checksum
  # against a reference, every R tuple once in the sorted dimension runs), the workers must run on
  # one CPU per node, and each of its four buffers (first touch by the workers) must have 1/n of
  # its pages on every node. 2^18 facts and 2^15 dimension tuples of 16 bytes on 4 KiB pages give
  # every worker whole pages of each buffer. Timings under TCG mean nothing.
  echo "QN: --- numatwin validate run --workload sort-merge-join --sort-merge-phases all"
  mok=0
  share=$(awk -v n="$nn" 'BEGIN { s = 100 / n; printf (s == int(s) ? "%d" : "%g"), s }')
  lo=$(awk -v n="$nn" 'BEGIN { printf "%d", 100 / n - 1 }')
  hi=$(awk -v n="$nn" 'BEGIN { printf "%d", 100 / n + 1 }')
  for order in ring scheduled; do
    f=/tmp/smj-$order.txt
    numatwin validate run --topology /tmp/skeleton.json --repetitions 1 --threads "$nn" --placement sparse \
      --workload sort-merge-join --sort-merge-phases all --algorithm "$order" --records 262144 --build-records 32768 \
      --huge-pages off >"$f" 2>/tmp/smj-$order.err || { echo "QN: sortmerge: $order: FAIL (exit status)"; mok=1; }
    cat "$f"
    tail -n 3 /tmp/smj-$order.err
    if grep -q "verified: yes" "$f"; then echo "QN: sortmerge: $order verified: ok"; else echo "QN: sortmerge: $order: FAIL (not verified)"; mok=1; fi
    if grep -q "threads ran on CPUs $(seq -s, 0 $((nn - 1)))\$" "$f"; then echo "QN: sortmerge: $order one worker per node: ok"
    else echo "QN: sortmerge: $order: FAIL (threads: $(grep 'threads ran' "$f"))"; mok=1; fi
    for buffer in "fact runs" "dimension chunks" "dimension pieces" "dimension runs"; do
      line=$(grep "^  $buffer: " "$f")
      i=0
      while [ "$i" -lt "$nn" ]; do
        pct=$(echo "$line" | sed -n "s/.*n$i: \([0-9.]*\)%.*/\1/p")
        if [ -z "$pct" ] || ! awk -v p="$pct" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(p >= lo && p <= hi) }'; then
          echo "QN: sortmerge: $order: FAIL ($buffer: n$i not about $share %: $line)"; mok=1
        fi
        i=$((i + 1))
      done
    done
    [ "$mok" = 0 ] && echo "QN: sortmerge: $order: every buffer spread over the $nn nodes ($share % each): ok"
  done
  echo "QN: SORTMERGE_EXIT=$mok at uptime $(cut -d' ' -f1 /proc/uptime)s"
fi
sync
poweroff -f
reboot -f
