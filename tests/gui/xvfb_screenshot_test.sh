#!/usr/bin/env bash
# Starts the real numatwin-gui window under Xvfb (naive shuffle on nehalem-ex-4s, step 0), waits
# until the run is on screen, takes a screenshot of the X display with ImageMagick's `import`
# and checks it is a real picture (the right size, many colours, the hot red of the scale).
# Skips (exit 77) with a message when Xvfb or import is missing: scripts/setup installs both.
# With window arguments, SHOT_NAME names the picture, and each SHOT_EXPECT entry
# "rgb(R,G,B):MIN:WHAT" (entries separated by |) requires at least MIN pixels of that colour (+- 6 %) on screen (default:
# the hot red of the scale, 200 pixels).
#
# Usage: [SHOT_NAME=x.png] [SHOT_EXPECT="rgb(...):N:what|..."] xvfb_screenshot_test.sh NUMATWIN_GUI OUT_DIR [window arguments...]
set -euo pipefail

gui="$1"
out_dir="$2"
shift 2
for tool in Xvfb import identify convert; do
  if ! command -v "${tool}" >/dev/null 2>&1; then
    echo "SKIP: ${tool} is not installed (scripts/setup installs xvfb and imagemagick)"
    exit 77
  fi
done
mkdir -p "${out_dir}"
shot="${out_dir}/${SHOT_NAME:-numatwin-gui.png}"
ready="${out_dir}/ready"
log="${out_dir}/numatwin-gui.log"
rm -f "${shot}" "${ready}"

# A free display number: the first without a lock file.
display=""
for n in $(seq 90 140); do
  if [[ ! -e "/tmp/.X${n}-lock" && ! -e "/tmp/.X11-unix/X${n}" ]]; then display=":${n}"; break; fi
done
[[ -n "${display}" ]] || { echo "FAIL: no free X display number"; exit 1; }

Xvfb "${display}" -screen 0 1600x1000x24 -nolisten tcp >"${out_dir}/xvfb.log" 2>&1 &
xvfb_pid=$!
gui_pid=""
cleanup() {
  [[ -n "${gui_pid}" ]] && kill "${gui_pid}" 2>/dev/null || true
  kill "${xvfb_pid}" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  [[ -e "/tmp/.X11-unix/X${display#:}" ]] && break
  sleep 0.1
done

args=("$@")
if ((${#args[@]} == 0)); then
  args=(--topology nehalem-ex-4s --workload shuffle --algorithm naive --threads 32 --run --step 0)
fi
# The window, with the X platform (not the offscreen one the test preset sets).
DISPLAY="${display}" QT_QPA_PLATFORM=xcb ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
  "${gui}" --size 1600x1000 --ready-file "${ready}" "${args[@]}" >"${log}" 2>&1 &
gui_pid=$!
for _ in $(seq 1 1200); do
  [[ -e "${ready}" ]] && break
  if ! kill -0 "${gui_pid}" 2>/dev/null; then
    echo "FAIL: numatwin-gui exited before it was ready; its log:"; cat "${log}"; exit 1
  fi
  sleep 0.1
done
[[ -e "${ready}" ]] || { echo "FAIL: numatwin-gui not ready after 120 s; its log:"; cat "${log}"; exit 1; }

DISPLAY="${display}" import -window root "${shot}"
size="$(identify -format '%wx%h' "${shot}")"
colours="$(identify -format '%k' "${shot}")"
echo "screenshot ${shot}: ${size}, ${colours} colours"
[[ "${size}" == "1600x1000" ]] || { echo "FAIL: expected 1600x1000"; exit 1; }
((colours > 50)) || { echo "FAIL: the screenshot looks blank (${colours} colours)"; exit 1; }
# Pixels of each expected colour +- a little; by default the saturated end of the utilisation
# scale (189, 0, 38): the hot controller.
IFS="|" read -r -a expects <<<"${SHOT_EXPECT:-rgb(189,0,38):200:saturated (red) element}"
for expect in "${expects[@]}"; do
  rgb="${expect%%:*}"
  rest="${expect#*:}"
  min="${rest%%:*}"
  what="${rest#*:}"
  count="$(convert "${shot}" -fuzz 6% -fill black +opaque "${rgb}" -fill white -opaque "${rgb}" \
          -format '%[fx:int(mean*w*h)]' info:)"
  echo "  ${count} pixels of ${rgb} (${what}), at least ${min} expected"
  ((count >= min)) || { echo "FAIL: too few pixels of ${rgb}: ${what} is not on screen"; exit 1; }
done
echo "PASS: the window is on screen with the run coloured"
