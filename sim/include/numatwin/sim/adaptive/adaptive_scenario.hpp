// A column store serving concurrent clients on a NUMA machine, over time (Psaroudakis et al.,
// docs/adaptive.md): what the adaptive engine (adaptive_engine.hpp) simulates. Plain data; the
// JSON form is read by the CLI (cli/src/io/adaptive_scenario_io.cpp), which checks every field.
//
// Units: sizes in bytes, times in seconds, rates in bytes per second unless a name says otherwise.
//  - A table is split into table parts (TBP); a part lives on one socket (a NUMA node with cores
//    and memory, numbered 0.. in topology order of such nodes). Parts hold whole pages.
//  - A query of class c on table T becomes one task per `task_bytes` chunk of each part of T,
//    queued at the part's socket. A task streams its chunk at
//        rate = min(bandwidth-model share, frequency / cycles_per_byte(c))
//    so cycles_per_byte sets the class's CPU intensity (low: memory-bound, high: CPU-bound).
//  - Clients issue queries back to back: the next one when the previous one completes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "numatwin/sim/adaptive/adaptive_query_plan.hpp"

namespace numatwin::sim {

struct AdaptiveTaskClass {
  std::string name;
  double cycles_per_byte = 0.125;  // core work per byte streamed, overlapped with the memory traffic
  double lines_in_flight = 0.0;    // > 0: random accesses with this many misses in flight; 0: streaming
};

// The default classes and where their cost comes from (OperatorCosts' defaults, 16-byte tuples):
//   scan         range predicate over the column: scan_cycles_per_tuple 2 / 16 B   = 0.125 cycles/B
//   aggregation  GROUP BY with SUM, small hash table: hash_cycles_per_tuple 20 / 16 B = 1.25 cycles/B
//   join         equi-join probe on the key: hash + compare, 2 x 20 / 16 B            = 2.5 cycles/B
std::vector<AdaptiveTaskClass> default_adaptive_task_classes();

// The classes of the phases of query types (adaptive_query_plan.hpp), appended to the defaults
// when a scenario has query types and no task_classes of its own (per unit of work, with
// OperatorCosts' defaults where one exists; docs/adaptive.md cites each):
//   materialise  one random dictionary access per result value (one 64-byte line), decoding and
//                copying it: 200 cycles per value (a default: the study calls it CPU-intensive),
//                3.125 cycles/B, random_lines_in_flight 4
//   dictionary   merge of sorted part dictionaries and lookups in the global one:
//                merge_cycles_per_tuple 10 per 8-byte value = 1.25 cycles/B, 4 lines in flight
//   merge        hash table merge: group_cycles_per_tuple 20 per 16-byte entry = 1.25 cycles/B,
//                4 lines in flight
//   mapping      value-id mapping, a merge of two sorted dictionaries: 10 per 8-byte value =
//                1.25 cycles/B, streaming
std::vector<AdaptiveTaskClass> default_adaptive_phase_classes();

struct AdaptiveTable {
  AdaptiveTable() = default;
  AdaptiveTable(std::string table_name, double bytes, int on_socket, int part_count = 1)
      : name(std::move(table_name)), size_bytes(bytes), socket(on_socket), parts(part_count) {}
  std::string name;
  double size_bytes = 0.0;
  int socket = 0;  // where its single initial part lives
  int parts = 1;   // > 1: split evenly over sockets socket, socket+1, ... (mod sockets)
  std::string group;  // table group (TGP): tables of one group with aligned parts are co-partitioned
  double row_bytes = 16.0;              // index-vector bytes per row (default: 16-byte tuples, as the classes)
  double distinct_values = 1048576.0;   // in the column's dictionary (a default: 2^20)
};

// A query class with a weight: the client draws the next query's class with probability
// weight / sum of weights.
struct WeightedChoice {
  int index = 0;
  double weight = 1.0;
};

struct AdaptiveClientGroup {
  int count = 1;                       // identical clients
  std::vector<WeightedChoice> tables;  // AdaptiveTable indices
  std::vector<WeightedChoice> classes; // AdaptiveTaskClass indices
  std::vector<WeightedChoice> query_types;  // AdaptiveQueryType indices, drawn with the classes
  double start_s = 0.0;
  double stop_s = 1e300;  // issues no new query after this
};

// Data Placer constants (defaults: the study's values, docs/adaptive.md cites each).
struct PlacerParameters {
  double period_s = 1.0;              // c_p
  double eligibility_divergence = 0.3;  // c_e
  double saturation = 0.7;            // c_s: hot socket busier than this share of its cores
  double imbalance = 0.4;             // c_i: pair imbalance above this share of a socket's cores
  double cold_table_cpu = 0.1;        // a partitioned table below this (share of one socket's cores) is cold (assumption)
};

// Utilisation tracking (defaults: the study's values).
struct TrackingParameters {
  double sample_period_s = 0.1;
  double history_s = 300.0;
  double class_ema_weight = 0.1;  // weight of the new value in the per-class moving average
};

enum class StealingMode { kAllow, kDeny, kAdaptive };

// Where the per-page move and partition costs come from.
struct PageCosts {
  double move_s_per_page = 0.0;
  double partition_s_per_page = 0.0;
  std::string source;  // the scenario's citation, or how they were derived
};

struct AdaptiveScenario {
  std::string name;
  std::string description;
  double duration_s = 60.0;
  std::uint64_t seed = 1;
  double page_bytes = 4096.0;           // assumption: the OS base page
  double task_bytes = 64.0 * 1048576.0;  // chunk of a part one task streams
  int workers_per_socket = 0;            // 0: one worker per core
  std::optional<PageCosts> costs;        // none: derived from the machine (adaptive_engine.hpp)
  std::vector<AdaptiveTaskClass> classes;
  std::vector<AdaptiveTable> tables;
  std::vector<AdaptiveQueryType> query_types;
  AdaptiveMechanismParameters mechanisms;
  std::vector<AdaptiveClientGroup> clients;
  PlacerParameters placer;
  TrackingParameters tracking;
  bool placer_enabled = true;
  StealingMode stealing = StealingMode::kAdaptive;
  // Adaptive stealing threshold (bytes/s per task); none: calibrated on the machine.
  std::optional<double> stealing_threshold_bytes_per_s;
};

StealingMode parse_stealing_mode(const std::string& text);  // allow | deny | adaptive
std::string stealing_mode_name(StealingMode mode);

}  // namespace numatwin::sim
