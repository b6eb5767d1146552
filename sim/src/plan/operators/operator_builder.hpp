// The shared part of every operator's plan (operator_plan.hpp has the model's maths): threads
// placed, datasets placed by the memory policy, and the loop helpers every operator builds its
// plan from — streaming scans, write streams, and table loops (a scan whose core work overlaps
// the stream, followed by the LLC misses as a latency-bound transfer).
//
// An operator is a file in this folder that defines an OperatorDefinition: the datasets it
// allocates (in allocation order) and how its workers' plans are built from the helpers below.
// A new operator is a new file and one line in operator_definition() (operator_plan.cpp).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "numatwin/model/routing.hpp"
#include "numatwin/model/tlb.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/key_distribution.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/plan/plan.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim::operators {

// A dataset an operator allocates: memory_policy.hpp decides its pages.
struct DatasetRequest {
  std::string name;
  double bytes = 0.0;
  DatasetKind kind = DatasetKind::kPartitioned;
  // kPartitioned: the share each worker first-touches (in worker order); empty: equal chunks.
  std::vector<double> worker_shares = {};
};

class OperatorBuilder;

struct OperatorDefinition {
  // The datasets, in allocation order (the first is the input that "shared" placement follows).
  std::vector<DatasetRequest> (*datasets)(const WorkloadSpec& spec);
  // Fills every worker's ThreadPlan (builder.thread_plan(w)).
  void (*plan)(OperatorBuilder& builder);
  // Operators whose input is cut into threads x threads pieces need a record per piece.
  bool needs_a_record_per_piece = false;
};

// The definitions, one per file of this folder.
OperatorDefinition aggregation_operator();  // COUNT and MEDIAN (aggregation.cpp)
OperatorDefinition hash_join_operator();    // non-partitioned (hash_join.cpp)
OperatorDefinition radix_join_operator();   // radix_join.cpp
OperatorDefinition index_join_operator();   // index_join.cpp
OperatorDefinition partitioned_aggregation_operator();  // partitioned_aggregation.cpp
OperatorDefinition sort_merge_join_operator();          // sort_merge_join.cpp
OperatorDefinition subarray_operator();                 // subarray.cpp
// The subarray filter's chunk groups (operator_plan.hpp: interchangeable_threads).
std::vector<ThreadGroup> subarray_chunk_groups(const WorkloadSpec& spec);

class OperatorBuilder {
 public:
  OperatorBuilder(const model::Topology& topology, const WorkloadSpec& spec, OperatorDefinition definition);

  // Checks the spec, places threads and datasets, runs the operator's plan.
  // Once per builder (on a temporary): the plan is handed over, not copied (threads^2 ops, each
  // Transfer with its spreads, for the shuffle-shaped operators).
  Plan build(PlanReport* report) &&;

  [[nodiscard]] const model::Topology& topology() const { return t_; }
  [[nodiscard]] const WorkloadSpec& spec() const { return spec_; }
  [[nodiscard]] const DataSpec& data() const { return spec_.data; }
  [[nodiscard]] const OperatorCosts& costs() const { return spec_.costs; }
  [[nodiscard]] int workers() const { return static_cast<int>(threads_.size()); }
  [[nodiscard]] const std::vector<PlacedThread>& threads() const { return threads_; }
  [[nodiscard]] const model::Node& node_of(int worker) const { return t_.nodes[threads_[worker].node]; }
  [[nodiscard]] const model::Routing& routing() const { return routing_; }
  [[nodiscard]] double line_bytes() const { return t_.performance.cache_line_bytes; }
  [[nodiscard]] double frequency_hz(int worker) const { return node_of(worker).frequency_ghz * 1e9; }
  [[nodiscard]] const DataPlacement& dataset(const char* name) const;
  // dataset(name).spread(), worked out once when the datasets are placed: a weighted-interleaved
  // dataset has one segment per worker, and the loops ask for its whole spread per batch.
  [[nodiscard]] const SharedSpread& spread_of(const char* name) const;
  ThreadPlan& thread_plan(int worker) { return plan_.threads[worker]; }
  void set_steps(int steps) { plan_.steps = steps; }
  // The stage after the last barrier that names one (plan.hpp: Plan::final_stage).
  void set_final_stage(std::string_view stage) { plan_.final_stage = stage; }

  // ── Loop helpers ──────────────────────────────────────────────────────────────────────────
  // The OS moves unpinned threads now and then ("none"): a Bind to a random node.
  void maybe_os_move(ThreadPlan& tp);
  // A streaming read of `bytes` from `spread` with `cycles` of core work in all.
  // Phases (plan.hpp): the scan counts as `phase`; a share `core_phase_share` of its cycles is
  // work of `core_phase` (e.g. MEDIAN's sort, the merge) that the scan's rate carries.
  // `lines_in_flight` > 0: the stream keeps at most that many lines in flight (else the core's
  // miss buffers, shared with its other streams).
  static void scan(ThreadPlan& tp, SharedSpread spread, double bytes, double cycles, int step = -1,
                   Phase phase = Phase::kReadInput, Phase core_phase = Phase::kOther, double core_phase_share = 0.0,
                   double lines_in_flight = 0.0);
  // The lines in flight of a stream that keeps `share` of `worker`'s core's miss buffers
  // (table_stream_share, filter_stream_share); 0 (no limit of its own) for a share of 1.
  [[nodiscard]] double stream_lines_in_flight(int worker, double share) const;
  static void write_stream(ThreadPlan& tp, SharedSpread spread, double bytes);
  // `misses` random cache-line misses to a table spread as given (updates read the line for
  // ownership and write it back), random_lines_in_flight in flight: a latency-bound transfer,
  // taking at least `core_seconds` of core work that overlaps it (f: the core's clock, Hz); with
  // no miss that work is a Compute.
  // `accesses` loads whose address comes from the load before them (a chain's next node, a block's
  // tail after its header), which no prefetch can start early: the share `hit` is served by the
  // LLC (llc_hit_ns each, core time), the rest go to memory one at a time (one line in flight).
  void dependent_accesses(ThreadPlan& tp, SharedSpread spread, double accesses, double hit, bool update,
                          Phase phase) const;
  void random_misses(ThreadPlan& tp, SharedSpread table_spread, double misses, bool update, int step,
                     Phase phase, double core_seconds = 0.0, double frequency_hz = 0.0) const;

  // Address translation (model/tlb.hpp): `accesses` random accesses over a buffer of
  // `footprint_bytes`, `in_flight` of them at once (random_lines_in_flight for a table loop's
  // prefetched lines, 1 for dependent accesses), on the pages the spec's page setting gives
  // `buffer`: what those pages add over 2 MiB pages (extra_translation_ns each), as a Compute in
  // `phase`. Nothing on 2 MiB pages, so the default setting (huge pages on) adds no op.
  void page_walks(ThreadPlan& tp, double footprint_bytes, double accesses, double in_flight, model::BufferKind buffer,
                  Phase phase) const;
  // The same for the table loops of a buffer: in flight random_lines_in_flight.
  void table_page_walks(ThreadPlan& tp, double footprint_bytes, double accesses, model::BufferKind buffer, Phase phase) const {
    page_walks(tp, footprint_bytes, accesses, spec_.costs.random_lines_in_flight, buffer, phase);
  }
  // One note per buffer that the page setting puts on 4 KiB pages: its footprint, the TLB's
  // miss ratios and the ns it adds per access (with `in_flight` accesses at once).
  void note_pages(const std::string& what, double footprint_bytes, double in_flight, model::BufferKind buffer);
  [[nodiscard]] const model::TlbBasis& tlb() const { return tlb_; }

  // One batch of a table loop: a scan of `scan_bytes` from `scan_spread` with `scan_cycles` of
  // core work, and per scanned tuple-batch `accesses` random accesses to a table spread as given,
  // of which a share `hit` hits the LLC and a share `private_hit` (<= hit) the core's own cache.
  // `shared_transfers`: the share of the accesses that find their line modified by another core
  // (shared_line_share), each paying shared_line_transfer_ns. `atomic`: every access is a locked
  // read-modify-write (the kernels use them when several workers update one table), which pays
  // atomic_update_ns.
  //
  // Overlap: the core's work on the table (cycles_per_access, the cache hits' latency over
  // random_lines_in_flight, the shared-line transfers) runs while the prefetchers stream the
  // input, so it is put on the scan as its compute limit: the scan takes
  // max(bytes / bandwidth, core work). The input stream keeps table_stream_share of the core's
  // miss buffers in flight (M s lines, M = miss_buffers_per_core): by Little's law it gets at most
  // M s x line / latency, so a loop whose loads wait behind its work per tuple is slower over a
  // memory-resident input than over a cached one even where its core work exceeds the
  // bandwidth's time (COUNT into a table in L2: 1.6 ns a tuple from L2, 2.3 ns from memory on
  // this project's build VM). Accesses that leave the core's own cache hide the input's lines
  // under their own waits instead (COUNT into a 2 MiB table, beyond that VM's 1 MiB L2: 2.04 ns
  // a tuple from L2, 2.02 from memory), so the share applies to the accesses that stay in the
  // private cache: s' = s + (1 - s)(1 - h_private). This interpolation between the two measured
  // ends is an assumption of the model. The accesses that miss the LLC then follow as their own
  // latency-bound transfer (random_lines_in_flight misses in flight); updates read the line for
  // ownership and write it back. The locked updates (atomic_update_ns each) overlap the misses
  // instead: a locked read-modify-write drains the core's pipeline and store buffer, but the
  // misses its loop prefetched ahead stay in flight meanwhile, so the misses' transfer takes
  // max(its latency-bound time, accesses x atomic_update_ns) (a Compute of the latter when
  // nothing misses). `cold_misses` of the accesses' misses are a migrated thread's
  // state coming into its new node's cache (partitioned_aggregation.cpp): their own transfer.
  //
  // Phases: the scan is "read input" and carries the table's core work ("update table" with
  // `update`, else "probe table") as the share of its cycles that the table work is; the misses
  // are the table's phase, the cold misses "move state".
  void table_loop(ThreadPlan& tp, int worker, SharedSpread scan_spread, double scan_bytes, double scan_cycles,
                  SharedSpread table_spread, double accesses, double hit, bool update, double cycles_per_access,
                  int step = -1, double shared_transfers = 0.0, double private_hit = 0.0, bool atomic = false,
                  double cold_misses = 0.0) const;

  // The LLC bytes of `node` that a random-access table keeps: llc_bytes x llc_usable_share.
  [[nodiscard]] double usable_llc_bytes(const model::Node& node) const { return node.llc_bytes() * spec_.costs.llc_usable_share; }
  // Entries of a table that the usable LLC of `worker`'s node holds; `private_table`: the LLC is split
  // between the node's workers, each with its own table.
  [[nodiscard]] double cached_entries(int worker, double entry_bytes, bool private_table) const;
  // Atomic updates by `updaters` workers of one shared table of entries of `entry_bytes`: the
  // share of updates whose line another worker modified last and still holds in its private
  // cache: (k - 1) / k x the chance that the line is in a private cache, which is the cache hit
  // ratio of the key distribution for a cache of the private cache's size (key_distribution.hpp).
  [[nodiscard]] double shared_line_share(int worker, const KeySpec& keys, double entry_bytes, double accesses, int updaters) const;
  // The share of `accesses` random accesses to a table of entries of `entry_bytes` that hit the
  // core's own cache (key_distribution.hpp with the private cache's size).
  [[nodiscard]] double private_hit_ratio(int worker, const KeySpec& keys, double entry_bytes, double accesses) const;

  // ── Notes for reports ─────────────────────────────────────────────────────────────────────
  void note(std::string text) { notes_.push_back(std::move(text)); }
  void note_hit(const std::string& what, double hit);
  void note_shared(const std::string& what, double share);

 private:
  void check() const;
  void place_datasets();
  void place_threads_for_data();

  const model::Topology& t_;
  const WorkloadSpec& spec_;
  model::TlbBasis tlb_;
  OperatorDefinition definition_;
  model::Routing routing_;
  std::mt19937_64 os_random_;
  std::vector<PlacedThread> threads_;
  std::vector<DataPlacement> datasets_;
  std::vector<SharedSpread> whole_spreads_;  // per dataset: its spread(), shared by the transfers
  std::vector<std::string> notes_;
  Plan plan_;
};

}  // namespace numatwin::sim::operators
