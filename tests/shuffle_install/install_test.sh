#!/bin/sh
# Installs libnumatwin-shuffle into a temporary prefix, builds consumer.cpp against it with
# nothing but `pkg-config --cflags --libs numatwin-shuffle` (as C++17: the public headers need
# no more), and runs it on a schedule that `numatwin schedule --out` designed.
# Usage: install_test.sh BUILD_DIR CXX NUMATWIN SOURCE_DIR [extra compiler flags]
set -eu
build=$1 cxx=$2 numatwin=$3 src=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --component shuffle --prefix "$tmp/prefix" >"$tmp/install.log"
pc=$(find "$tmp/prefix" -name numatwin-shuffle.pc)
test -n "$pc" || { echo "no numatwin-shuffle.pc installed"; cat "$tmp/install.log"; exit 1; }
test -f "$tmp/prefix/include/numatwin/shuffle/shuffle.hpp" || { echo "no public header installed"; exit 1; }
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
flags=$(pkg-config --cflags --libs numatwin-shuffle)
echo "pkg-config --cflags --libs numatwin-shuffle: $flags"
# shellcheck disable=SC2086
"$cxx" -std=c++17 "$@" -o "$tmp/consumer" "$src/consumer.cpp" $flags
# The twisted ladder is a machine where the designed order beats the ring (README), so the
# program runs a designed order, not the ring.
"$numatwin" schedule --topology opteron-8220-8s-twisted-ladder --threads 16 --out "$tmp/designed.json" >/dev/null
grep -q '"designed": true' "$tmp/designed.json" || { echo "expected a designed order in $tmp/designed.json"; exit 1; }
"$tmp/consumer" "$tmp/designed.json"
