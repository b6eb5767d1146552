#!/bin/sh
# Installs the C++ package (component cpp) into a temporary prefix, configures and builds the
# consumer project against it with nothing but CMAKE_PREFIX_PATH, and runs it on a bundled machine.
# Usage: install_test.sh BUILD_DIR CXX SOURCE_DIR TOPOLOGY_FILE [extra compiler flags]
set -eu
build=$1 cxx=$2 src=$3 topology=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --component cpp --prefix "$tmp/prefix" >"$tmp/install.log"
config=$(find "$tmp/prefix" -name numatwinConfig.cmake)
test -n "$config" || { echo "no numatwinConfig.cmake installed"; cat "$tmp/install.log"; exit 1; }
echo "installed: $(cd "$tmp/prefix" && find . -name '*.a' -o -name '*.cmake' | sort | tr '\n' ' ')"
cmake -S "$src/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS=$*" >"$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/consumer" >"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
"$tmp/consumer/consumer" "$topology"
