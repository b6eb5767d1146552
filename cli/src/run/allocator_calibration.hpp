// `numatwin validate allocbench --calibrate TOPOLOGY --out FILE`: each allocator's malloc, free,
// realloc and remote-free costs and its overhead ratio, measured in a fresh process per allocator
// (validate/allocator_cost_bench.hpp, allocator_bench.hpp) and written into the topology's
// /allocator_costs with the host, the time and the command's parameters.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/allocator_costs.hpp"
#include "numatwin/model/topology.hpp"

namespace numatwin::cli {

struct AllocatorCalibrationOptions {
  int threads = 2;             // cost rows 1 .. threads
  double mib_per_thread = 64;  // the overhead run's peak per thread
  int rounds = 2;              // the overhead run's rounds
  int repetitions = 5;         // of each cost point (median)
  double llc_bytes = 0.0;      // the topology's LLC (the layout figures' miss share); 0: 32 MiB
};

// The largest last-level cache of the topology's nodes (bytes; a cache shared by fewer cores than
// the node has counts once per group of cores); 0 when no node lists caches.
double topology_llc_bytes(const model::Topology& topology);

// In the child (already running under its allocator): measures and writes
// {"<allocator>": {...}} (the topology file's form) to `file`.
// `allocator` is the name the costs are stored under (the child checked that it runs with it).
// Throws std::invalid_argument in a sanitizer build (its malloc is not the allocator's).
void write_allocator_costs_file(const std::string& file, const std::string& allocator, const AllocatorCalibrationOptions& options);

// Reads what a child wrote; throws model::InputError naming the field.
model::AllocatorCosts read_allocator_costs_file(const std::string& file);

// Replaces (or adds) the allocator's entry and lists it in the provenance's measured figures.
void merge_allocator_costs(model::Topology& topology, const model::AllocatorCosts& costs);

// Runs the dependent-miss grid (validate/dependent_miss_bench.hpp) in this process, one thread,
// with the topology's LLC, and writes it into /dependent_misses with its host, time and source
// (listed in the provenance's measured figures). Throws std::invalid_argument in a sanitizer build.
void measure_dependent_misses(model::Topology& topology, int rounds);

}  // namespace numatwin::cli
