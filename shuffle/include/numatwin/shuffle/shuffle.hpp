// libnumatwin-shuffle: executes a shuffle schedule designed by `numatwin schedule` (or any other
// order) on the real machine. Include this header and link with
//   pkg-config --cflags --libs numatwin-shuffle
//
//   auto file = numatwin::shuffle::read_schedule_file("designed.json");   // schedule_file.hpp
//   numatwin::shuffle::Runner runner(os_cpus);                            // runner.hpp
//   numatwin::shuffle::NodeBuffers data(runner, piece_bytes, produce);    // node_buffers.hpp
//   runner.run(file.schedule, data.layout(), numatwin::shuffle::Sync::kTight,
//              [](int consumer, const std::byte* piece, std::size_t bytes) { ... });
//
// The schedule file's `cpus` are the topology's CPU numbers; on the machine the topology was
// discovered from they are the OS CPU numbers, elsewhere map them first.
#pragma once

#include "numatwin/shuffle/node_buffers.hpp"
#include "numatwin/shuffle/runner.hpp"
#include "numatwin/shuffle/schedule.hpp"
#include "numatwin/shuffle/schedule_file.hpp"
