// One description of a workload, interpreted by the simulator (sim/) and, later, executed by
// the real kernels (validate/). Sizes in bytes, rates in the units their names say.
#pragma once

#include <cstdint>
#include <string>

#include "numatwin/sim/thread_placement.hpp"

namespace numatwin::sim {

enum class WorkloadKind {
  kShuffle,           // every thread pulls its piece from every thread's buffer
  kMigration,         // the thread moves to the data instead; its state stays home
  kMigrationAndCopy,  // the thread moves and copies its state to the destination first
};

enum class ShuffleAlgorithm {
  kNaive,              // all threads walk the producers in the same order
  kRing,               // coordinated: two rings, every step reads every socket evenly
  kCoordinatedRandom,  // each thread a random permutation of the producers
};

enum class SyncMode { kTight, kLoose };  // barrier after every step, or none

struct WorkloadSpec {
  WorkloadKind kind = WorkloadKind::kShuffle;
  ShuffleAlgorithm algorithm = ShuffleAlgorithm::kRing;
  SyncMode sync = SyncMode::kTight;
  int threads = 1;
  ThreadPlacement placement;
  double total_bytes = 0.0;        // everything shuffled: threads^2 pieces
  int element_bytes = 8;           // 64-bit integers in the study
  double cycles_per_element = 1.0;  // consumer work; the study computes a mean (one add per element)
  double state_bytes = 64.0;       // migration: the thread's working state
  double migration_overhead_seconds = 5e-6;  // migration: the OS re-binding a thread
  std::uint64_t seed = 1;          // coordinated random order
};

// Checks the spec against the topology; throws std::invalid_argument with a message that names
// the field (e.g. "--bytes must be > 0").
void check_workload(const model::Topology& topology, const WorkloadSpec& spec);

WorkloadKind parse_workload_kind(const std::string& text);
ShuffleAlgorithm parse_algorithm(const std::string& text);
SyncMode parse_sync(const std::string& text);
std::string workload_kind_name(WorkloadKind kind);
std::string algorithm_name(ShuffleAlgorithm algorithm);
std::string sync_name(SyncMode sync);

}  // namespace numatwin::sim
