# An optimised `numatwin` without sanitizers, for the tests that run the whole program on heavy work
# (tests/cli's end-to-end runs of real kernels, simulations and fits; tests/emu's QEMU guests) and
# the Python module (tests/python: an extension module cannot carry ASan's runtime).
#
# With NUMATWIN_SANITIZE on (the debug preset, as CI builds it), an -O1 copy of the `numatwin` target
# is built from the same sources in <build>/optimised (ExternalProject, part of the normal build,
# through the outer build's compiler launcher, so ccache serves it). Under ASan and UBSan those runs
# took 20-60 times as long (cli.mlc 487 s against 8 s, cli.check_published 601 s against 21 s), and
# an ASan binary wants its shadow memory in a QEMU guest. The sanitizers keep watching the same code
# through the unit tests and the shorter CLI tests, which stay on the sanitized binary.
# Without NUMATWIN_SANITIZE the project's own binary serves.
#
# Sets NUMATWIN_OPTIMISED_BINARY (a path or a generator expression, for add_test) and
# NUMATWIN_OPTIMISED_TARGET (the target to depend on).
#
# The copy is built without -Werror: GCC 12 gives false -Wrestrict warnings on std::string at -O2,
# which the debug build (where CI turns warnings into errors) does not see. -O1: the copy compiles
# with about a quarter less CPU than at -O3 (3.72 -> 2.96 s for operators/subarray.cpp, 37.6 ->
# 27.5 s for validate's calibration.cpp).
if(NUMATWIN_SANITIZE)
  include(ExternalProject)
  set(optimised_dir ${CMAKE_BINARY_DIR}/optimised)
  # The Python module too, never sanitized: tests/python imports it from this copy.
  set(optimised_targets numatwin)
  if(NUMATWIN_BUILD_PYTHON)
    list(APPEND optimised_targets numatwin_python)
  endif()
  ExternalProject_Add(numatwin_optimised
    SOURCE_DIR ${CMAKE_SOURCE_DIR}
    BINARY_DIR ${optimised_dir}
    CMAKE_ARGS -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" -DNUMATWIN_SANITIZE=OFF
               -DNUMATWIN_BUILD_GUI=OFF -DNUMATWIN_BUILD_BENCH=OFF -DNUMATWIN_FUZZ=OFF
               -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
               -DPython3_EXECUTABLE=${Python3_EXECUTABLE} -DNUMATWIN_BUILD_PYTHON=${NUMATWIN_BUILD_PYTHON}
    BUILD_COMMAND ${CMAKE_COMMAND} --build ${optimised_dir} --target ${optimised_targets}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON
    USES_TERMINAL_BUILD ON)
  set(NUMATWIN_OPTIMISED_BINARY ${optimised_dir}/cli/numatwin)
  set(NUMATWIN_OPTIMISED_TARGET numatwin_optimised)
else()
  set(NUMATWIN_OPTIMISED_BINARY $<TARGET_FILE:numatwin>)
  set(NUMATWIN_OPTIMISED_TARGET numatwin)
endif()
