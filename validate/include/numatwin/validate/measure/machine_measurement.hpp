// `numatwin validate measure`: an open equivalent of Intel mlc built on libnuma and hwloc.
// For every (CPU node, memory node) pair this process may use:
//   - streaming read, write and copy bandwidth versus thread count (threads pinned with hwloc
//     in the model's order: one hardware thread per core first). Bandwidth = sum over threads
//     of bytes_i / seconds_i; copy counts the bytes read plus the bytes written;
//   - idle latency: one thread follows a random cyclic permutation of cache lines (Sattolo)
//     over a buffer of max(4 x LLC, 256 MiB), so every load misses the caches;
//   - loaded latency (local pairs, >= 2 CPUs): the same chaser while the node's other CPUs read
//     the node's memory, each pausing `delay` empty iterations per cache line (mlc's injection
//     delay), for several delays; reports the chaser's latency and the readers' bandwidth.
// Memory is placed with mbind(MPOL_BIND) and checked page by page with move_pages(2); every
// result carries the pages' nodes and each thread's CPU at start and end. Buffers are capped at
// 20 % of the memory node's free memory each. Rates divide by each thread's CPU time (not wall
// time), so a busy shared machine slows the run but does not bias the figures; "cpu_share"
// records the smallest CPU/wall ratio of a point's threads. The report is JSON ("numatwin-measurements").
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace numatwin::validate {

struct MeasureProgress {
  int done = 0;
  int total = 0;
  std::string label;  // what runs next
  double elapsed_s = 0.0;
  double eta_s = 0.0;
};

struct MeasureOptions {
  bool quick = false;                 // small buffers, short points: checks the mechanics in seconds
  double seconds_per_point = 0.0;     // 0: 1 s (0.05 s quick)
  double memory_fraction = 0.2;       // of a node's free memory, per buffer
  bool likwid = true;                 // probe likwid-perfctr, run likwid-bench (not in quick mode)
  const std::atomic<bool>* stop = nullptr;  // set (e.g. by SIGINT): finish the point, return the rest undone
  std::function<void(const MeasureProgress&)> progress;
  std::function<void(const nlohmann::ordered_json&)> checkpoint;  // the report after every finished point
};

// Runs the plan; returns the report ("complete": false and "interrupted": true when stopped).
// Throws std::runtime_error when hwloc or libnuma are unusable (the message says why).
nlohmann::ordered_json measure_machine(const MeasureOptions& options);

// Kernel version, THP and numa_balancing state, CPU model, host name: what the report's "host" holds.
nlohmann::ordered_json host_state();
// The time now in UTC, ISO 8601 ("2026-11-26T17:30:00Z"), as the reports record it.
std::string iso_time_now();

}  // namespace numatwin::validate
