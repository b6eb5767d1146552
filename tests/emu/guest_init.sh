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
echo "QN: kernel sees $nn NUMA node(s), $(grep -c ^processor /proc/cpuinfo) CPU(s)"
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
sync
poweroff -f
reboot -f
