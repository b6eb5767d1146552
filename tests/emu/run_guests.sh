#!/usr/bin/env bash
# The emulated multi-node NUMA test (CTest label `emu`): boots QEMU guests (TCG, no KVM) whose
# ACPI SRAT/SLIT describe 4 fully connected nodes, an 8-node twisted ladder and 3 nodes of which
# one has memory and no CPUs (twice: on Debian 12's kernel and on its bookworm-backports kernel,
# which has the kernel's weighted interleave), and runs the
# project's own `numatwin validate discover` and `numatwin validate selfcheck` inside each:
# discovery must reproduce the nodes, the distance matrix and the inferred link graph; bind,
# preferred and interleave must put every page where asked; move_pages must migrate them;
# pinned threads must run on their node. Guests whose topology file says so also run the kernels,
# a designed shuffle schedule and a migration schedule file (both page-checked) and the whole sort-merge join across the nodes (guest_init.sh).
#
# Usage: run_guests.sh NUMATWIN_BINARY WORK_DIR
#   NUMATWIN_BINARY  a numatwin built without sanitizers (tests/emu/CMakeLists.txt makes one)
#   WORK_DIR         scratch and cache: the kernel (kept between runs), initramfs, serial logs
# Env: NUMATWIN_EMU_KERNEL  a vmlinux/vmlinuz to boot instead of Debian's linux-image-amd64
#      NUMATWIN_EMU_WI_KERNEL  a 6.9+ vmlinuz for the guests marked `# kernel: bookworm-backports`
#      NUMATWIN_EMU_TIMEOUT_S  per guest (default 120)
# The kernel: $NUMATWIN_EMU_KERNEL, else the cached one, else /boot/vmlinuz-*, else Debian's
# linux-image-amd64 package fetched with `apt-get download` and unpacked (nothing installed),
# as in shared/tools/qemu-numa/build.sh, whose recipe this follows.
# Exit 0 when every guest passed; prints one RESULT line per guest and "N passed, N failed".
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
binary="${1:?usage: run_guests.sh NUMATWIN_BINARY WORK_DIR}"
work="${2:?usage: run_guests.sh NUMATWIN_BINARY WORK_DIR}"
timeout_s="${NUMATWIN_EMU_TIMEOUT_S:-120}"
start=${SECONDS}

fail() {
  echo "emu: FAILED: $*" >&2
  echo "0 passed, 1 failed"
  exit 1
}

for tool in qemu-system-x86_64 busybox cpio gzip ldd xz timeout; do
  command -v "${tool}" >/dev/null 2>&1 || [[ -x /bin/${tool} ]] ||
    fail "${tool} is not installed (scripts/setup installs qemu-system-x86, busybox-static, cpio, xz-utils)"
done
[[ -x "${binary}" ]] || fail "no guest binary at ${binary} (build the project first)"
busybox_bin="$(command -v busybox || echo /bin/busybox)"
mkdir -p "${work}/kernel"

# ── kernel ──
kernel_dir="${work}/kernel"
if [[ -n "${NUMATWIN_EMU_KERNEL:-}" ]]; then
  [[ -r "${NUMATWIN_EMU_KERNEL}" ]] || fail "NUMATWIN_EMU_KERNEL=${NUMATWIN_EMU_KERNEL} is not readable"
  cp "${NUMATWIN_EMU_KERNEL}" "${kernel_dir}/vmlinuz.new" && mv "${kernel_dir}/vmlinuz.new" "${kernel_dir}/vmlinuz"
  rm -f "${kernel_dir}/vmlinux"
elif [[ ! -s "${kernel_dir}/vmlinuz" ]]; then
  boot_kernel="$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -n "${boot_kernel}" && -r "${boot_kernel}" ]]; then
    cp "${boot_kernel}" "${kernel_dir}/vmlinuz"
    echo "emu: kernel ${boot_kernel}"
  else
    package="$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')"
    if [[ -z "${package}" && ${EUID} -eq 0 ]]; then
      apt-get update -qq >/dev/null 2>&1 || true
      package="$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')"
    fi
    [[ -n "${package}" ]] || fail "no kernel: set NUMATWIN_EMU_KERNEL, or let apt find linux-image-amd64 (apt-get update)"
    deb_dir="$(mktemp -d "${work}/kdeb.XXXXXX")"
    chmod 777 "${deb_dir}"
    (cd "${deb_dir}" && apt-get download -q "${package}" >/dev/null 2>&1) || fail "apt-get download ${package} failed"
    dpkg-deb --fsys-tarfile "${deb_dir}"/*.deb | tar -x -C "${deb_dir}" ./boot || fail "cannot unpack ${package}"
    cp "${deb_dir}"/boot/vmlinuz-* "${kernel_dir}/vmlinuz.new" && mv "${kernel_dir}/vmlinuz.new" "${kernel_dir}/vmlinuz"
    rm -rf "${deb_dir}"
    echo "emu: kernel ${package} (downloaded, $((SECONDS - start)) s)"
  fi
fi
# The uncompressed ELF kernel boots through QEMU's PVH entry: no firmware real mode, no xz
# decompression under TCG (about 2 s less per boot). boot_image DIR: DIR/vmlinux when it can be
# made from DIR/vmlinuz, else DIR/vmlinuz.
boot_image() {
  local dir="$1" offset
  if [[ ! -s "${dir}/vmlinux" ]]; then
    offset="$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "${dir}/vmlinuz" | head -n 1 | cut -d: -f1 || true)"
    if [[ -n "${offset}" ]] && xz -dc --single-stream < <(tail -c +$((offset + 1)) "${dir}/vmlinuz") \
        > "${dir}/vmlinux.tmp" 2>/dev/null &&
        [[ "$(head -c 4 "${dir}/vmlinux.tmp" | od -An -c | tr -d ' ')" == '177ELF' ]]; then
      mv "${dir}/vmlinux.tmp" "${dir}/vmlinux"
    else
      rm -f "${dir}/vmlinux.tmp"
    fi
  fi
  if [[ -s "${dir}/vmlinux" ]]; then echo "${dir}/vmlinux"; else echo "${dir}/vmlinuz"; fi
}
kernel="$(boot_image "${kernel_dir}")"

# A kernel with MPOL_WEIGHTED_INTERLEAVE (6.9 or later) for guests whose topology file says
# `# kernel: bookworm-backports`: $NUMATWIN_EMU_WI_KERNEL, else the cached one, else Debian 12's
# own newer kernel, linux-image-amd64 from bookworm-backports, fetched with apt-get download
# through a private apt state in WORK_DIR (the system's sources are not touched; nothing is
# installed). Prints the image, or nothing (with the reason on stderr) when none can be had.
backports_kernel() {
  local dir="${work}/kernel-backports" state="${work}/apt-backports" package deb_dir
  mkdir -p "${dir}"
  if [[ -n "${NUMATWIN_EMU_WI_KERNEL:-}" ]]; then
    [[ -r "${NUMATWIN_EMU_WI_KERNEL}" ]] || { echo "NUMATWIN_EMU_WI_KERNEL=${NUMATWIN_EMU_WI_KERNEL} is not readable" >&2; return 1; }
    cp "${NUMATWIN_EMU_WI_KERNEL}" "${dir}/vmlinuz" && rm -f "${dir}/vmlinux"
  elif [[ ! -s "${dir}/vmlinuz" ]]; then
    mkdir -p "${state}/lists/partial"
    echo "deb http://deb.debian.org/debian bookworm-backports main" > "${state}/sources.list"
    local apt=(-o "Dir::Etc::sourcelist=${state}/sources.list" -o Dir::Etc::sourceparts=/dev/null
               -o "Dir::State::Lists=${state}/lists" -o "Dir::Cache=${state}/cache")
    apt-get "${apt[@]}" -qq update >/dev/null 2>&1 || { echo "apt-get update of bookworm-backports failed (no network?)" >&2; return 1; }
    package="$(apt-cache "${apt[@]}" depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')"
    [[ -n "${package}" ]] || { echo "bookworm-backports lists no linux-image-amd64" >&2; return 1; }
    deb_dir="$(mktemp -d "${work}/kdeb.XXXXXX")"
    chmod 777 "${deb_dir}"
    (cd "${deb_dir}" && apt-get "${apt[@]}" download -q "${package}" >/dev/null 2>&1) ||
      { rm -rf "${deb_dir}"; echo "apt-get download ${package} failed" >&2; return 1; }
    dpkg-deb --fsys-tarfile "${deb_dir}"/*.deb | tar -x -C "${deb_dir}" ./boot ||
      { rm -rf "${deb_dir}"; echo "cannot unpack ${package}" >&2; return 1; }
    cp "${deb_dir}"/boot/vmlinuz-* "${dir}/vmlinuz.new" && mv "${dir}/vmlinuz.new" "${dir}/vmlinuz"
    rm -rf "${deb_dir}"
    echo "emu: kernel ${package} from bookworm-backports (downloaded)" >&2
  fi
  boot_image "${dir}"
}

# ── initramfs: busybox, numatwin and the shared libraries it needs, /init ──
root="${work}/root"
rm -rf "${root}"
mkdir -p "${root}"/{bin,sbin,usr/bin,proc,sys,dev,tmp,etc}
cp "${busybox_bin}" "${root}/bin/busybox"
for applet in $("${root}/bin/busybox" --list); do
  [[ -e "${root}/bin/${applet}" ]] || ln -s busybox "${root}/bin/${applet}"
done
cp "${binary}" "${root}/usr/bin/numatwin"
ldd "${binary}" | awk '/=> \//{print $3} /^[ \t]*\/lib/{print $1}' | sort -u | while read -r lib; do
  mkdir -p "${root}$(dirname "${lib}")"
  cp -L "${lib}" "${root}${lib}"
done
cp "${here}/guest_init.sh" "${root}/init"
chmod 755 "${root}/init"
# Every shipped machine's shuffle order as `numatwin schedule` designs it for one thread per node
# with CPUs (sparse), designed here on the host; a guest with as many nodes runs each of them
# (guest_init.sh). sgi-uv300h-32s (32 such nodes) and the one-node machine are left out: no guest
# has a node per thread for the first, and the second has no order to check.
mkdir -p "${root}/schedules"
for machine in "${here}"/../../topologies/*.json; do
  machine_name="$(basename "${machine}" .json)"
  machine_nodes="$(python3 -c 'import json, sys; print(sum(1 for n in json.load(open(sys.argv[1]))["nodes"] if n.get("cores", 0) > 0))' "${machine}")"
  ((machine_nodes >= 2 && machine_nodes <= 8)) || continue
  "${binary}" schedule --topology "${machine}" --threads "${machine_nodes}" --placement sparse --bytes 4e6 \
    --out "${root}/schedules/${machine_name}.json" >/dev/null || fail "numatwin schedule failed for ${machine_name}"
done
echo "emu: $(ls "${root}/schedules" | wc -l) shipped machines' schedules for the guests"
(cd "${root}" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "${work}/initramfs.cpio.gz" ||
  fail "cannot build the initramfs"
echo "emu: initramfs $(du -h --apparent-size "${work}/initramfs.cpio.gz" | cut -f1), kernel $(basename "${kernel}"), $((SECONDS - start)) s so far"

# ── guests ──
passed=0
failed=0
for topology in "${here}/topologies/4-full.txt" "${here}/topologies/8-twisted-ladder.txt" "${here}/topologies/3-cpuless.txt" \
    "${here}/topologies/3-cpuless-kernel-wi.txt"; do
  name="$(basename "${topology}" .txt)"
  log="${work}/${name}.log"
  mapfile -t rows < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${topology}")
  links="$(sed -n 's/^# links: *//p' "${topology}")"
  measure="$(sed -n 's/^# measure: *//p' "${topology}")"
  kernels="$(sed -n 's/^# kernels: *//p' "${topology}")"
  cpuless="$(sed -n 's/^# cpuless: *//p' "${topology}")"  # nodes with memory and no CPUs, e.g. 2 or 2,3
  schedule="$(sed -n 's/^# schedule: *//p' "${topology}")"
  sortmerge="$(sed -n 's/^# sortmerge: *//p' "${topology}")"
  guest_kernel_source="$(sed -n 's/^# kernel: *//p' "${topology}")"  # bookworm-backports, or the default
  wi_kernel="$(sed -n 's/^# wi_kernel: *//p' "${topology}")"
  guest_kernel="${kernel}"
  if [[ "${guest_kernel_source}" == bookworm-backports ]]; then
    if ! guest_kernel="$(backports_kernel)" || [[ -z "${guest_kernel}" ]]; then
      echo "RESULT ${name}: FAILED (no kernel with weighted interleave: see the reason above; NUMATWIN_EMU_WI_KERNEL=a 6.9+ vmlinuz)"
      failed=$((failed + 1))
      continue
    fi
  fi
  n=${#rows[@]}
  cpu_nodes=0
  mem_mb=$((n * 128))
  args=()
  flat=()
  for ((i = 0; i < n; i++)); do
    read -r -a row <<<"${rows[i]}"
    flat+=("${row[@]}")
    args+=(-object "memory-backend-ram,id=mem${i},size=$((mem_mb / n))M" -numa "node,nodeid=${i},memdev=mem${i}")
    if [[ ",${cpuless}," != *",${i},"* ]]; then
      args+=(-numa "cpu,node-id=${i},socket-id=${cpu_nodes}")
      cpu_nodes=$((cpu_nodes + 1))
    fi
  done
  for ((i = 0; i < n; i++)); do
    for ((j = 0; j < n; j++)); do
      ((i == j)) || args+=(-numa "dist,src=${i},dst=${j},val=${flat[i * n + j]}")
    done
  done
  dist_csv="$(IFS=,; echo "${flat[*]}")"
  guest_start=${SECONDS}
  timeout "${timeout_s}" qemu-system-x86_64 -M pc -accel tcg,thread=multi -cpu qemu64 \
    -smp "${cpu_nodes},sockets=${cpu_nodes},cores=1,threads=1" -m "${mem_mb}M" "${args[@]}" \
    -kernel "${guest_kernel}" -initrd "${work}/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet numa_balancing=disable qn_dist=${dist_csv} qn_links=${links} qn_measure=${measure:-0} qn_kernels=${kernels:-0} qn_cpuless=${cpuless:-none} qn_schedule=${schedule:-0} qn_sortmerge=${sortmerge:-0} qn_wi_kernel=${wi_kernel:-0}" \
    -nodefaults -no-user-config -display none -serial stdio -net none -no-reboot \
    </dev/null >"${log}" 2>&1
  qemu_status=$?
  tr -d '\r' <"${log}" >"${log}.tmp" && mv "${log}.tmp" "${log}"
  discover="$(sed -n 's/^QN: DISCOVER_EXIT=\([0-9]*\).*/\1/p' "${log}" | tail -n 1)"
  selfcheck="$(sed -n 's/^QN: SELFCHECK_EXIT=\([0-9]*\).*/\1/p' "${log}" | tail -n 1)"
  measured="$(sed -n 's/^QN: MEASURE_EXIT=\([0-9]*\).*/\1/p' "${log}" | tail -n 1)"
  kernels_status="$(sed -n 's/^QN: KERNELS_EXIT=\([0-9]*\).*/\1/p' "${log}" | tail -n 1)"
  cpuless_status="$(sed -n 's/^QN: CPULESS_EXIT=\([0-9]*\).*/\1/p' "${log}" | tail -n 1)"
  schedule_status="$(sed -n 's/^QN: SCHEDULE_EXIT=\([0-9]*\).*/\1/p' "${log}" | tail -n 1)"
  sortmerge_status="$(sed -n 's/^QN: SORTMERGE_EXIT=\([0-9]*\).*/\1/p' "${log}" | tail -n 1)"
  wi_kernel_status="$(sed -n 's/^QN: WIKERNEL_EXIT=\([0-9]*\).*/\1/p' "${log}" | tail -n 1)"
  summary="$(grep -E '^selfcheck: [0-9]+ passed, [0-9]+ failed' "${log}" | tail -n 1)"
  verdict=ok
  reason=""
  if ((qemu_status == 124)); then
    verdict=FAILED reason="timed out after ${timeout_s} s"
  elif [[ "${discover}" != 0 ]]; then
    verdict=FAILED reason="discover exit '${discover:-none}'"
  elif [[ "${selfcheck}" != 0 ]]; then
    verdict=FAILED reason="selfcheck exit '${selfcheck:-none}'"
  elif [[ "${measure:-0}" == 1 && "${measured}" != 0 ]]; then
    verdict=FAILED reason="measure --quick exit '${measured:-none}'"
  elif [[ "${kernels:-0}" == 1 && "${kernels_status}" != 0 ]]; then
    verdict=FAILED reason="kernels across nodes: status '${kernels_status:-none}'"
  elif [[ "${schedule:-0}" == 1 && "${schedule_status}" != 0 ]]; then
    verdict=FAILED reason="designed shuffle and migration schedules run for real: status '${schedule_status:-none}'"
  elif [[ "${sortmerge:-0}" == 1 && "${sortmerge_status}" != 0 ]]; then
    verdict=FAILED reason="the whole sort-merge join across nodes: status '${sortmerge_status:-none}'"
  elif [[ -n "${cpuless}" && "${cpuless_status}" != 0 ]]; then
    verdict=FAILED reason="CPU-less node checks: status '${cpuless_status:-none}'"
  elif [[ "${wi_kernel:-0}" == 1 && "${wi_kernel_status}" != 0 ]]; then
    verdict=FAILED reason="the kernel's weighted interleave: status '${wi_kernel_status:-none}'"
  fi
  measure_summary="$(sed -n 's/^QN: \(measure: .*\)/\1/p' "${log}" | tail -n 1)"
  guest_release="$(sed -n 's/^QN: kernel \([^ ]*\) sees.*/\1/p' "${log}" | head -n 1)"
  echo "RESULT ${name}: ${verdict} (${n} nodes, kernel ${guest_release:-unknown}, $((SECONDS - guest_start)) s, ${summary:-no selfcheck summary}${measure_summary:+; ${measure_summary}}${reason:+, ${reason}}) log ${log}"
  if [[ "${verdict}" == ok ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "---- failing checks and the last lines of ${log}:"
    grep -E '^(FAIL|numatwin: error|QN: measure|QN: (kernels|cpuless|schedule|sortmerge|wi-kernel): .*FAIL)' "${log}" || true
    tail -n 25 "${log}"
    echo "----"
  fi
done
echo "emu: $((SECONDS - start)) s in all"
echo "${passed} passed, ${failed} failed"
((failed == 0))
