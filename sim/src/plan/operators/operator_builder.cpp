#include "operator_builder.hpp"

#include "numatwin/sim/workload/memory_policy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace numatwin::sim::operators {
namespace {

constexpr double kOsMoveOverheadSeconds = 5e-6;

}  // namespace

OperatorBuilder::OperatorBuilder(const model::Topology& topology, const WorkloadSpec& spec, OperatorDefinition definition)
    : t_(topology), spec_(spec), tlb_(model::tlb_basis(topology.tlb)), definition_(definition), routing_(topology), os_random_(spec.placement.seed * 7919 + 17) {}

Plan OperatorBuilder::build(PlanReport* report) && {
  check();
  place_threads_for_data();
  plan_.threads.resize(threads_.size());
  for (std::size_t i = 0; i < threads_.size(); ++i) plan_.threads[i].core = threads_[i].core;
  definition_.plan(*this);
  if (report != nullptr) {
    report->threads = threads_;
    report->datasets = datasets_;
    report->notes = notes_;
  }
  return std::move(plan_);
}

void OperatorBuilder::check() const {
  check_sizes(spec_);
  const DataSpec& d = spec_.data;
  if (!(d.records >= 1.0) || !std::isfinite(d.records)) throw std::invalid_argument("--records must be >= 1");
  if (!(d.build_records >= 1.0) || !std::isfinite(d.build_records)) throw std::invalid_argument("--build-records must be >= 1");
  if (d.tuple_bytes < 1) throw std::invalid_argument("--tuple-bytes must be >= 1");
  if (!(d.keys.groups >= 1.0)) throw std::invalid_argument("--groups must be >= 1");
  const OperatorCosts& c = spec_.costs;
  if (!(c.random_lines_in_flight >= 1.0)) throw std::invalid_argument("--random-lines-in-flight must be >= 1");
  if (!(c.shared_line_transfer_ns >= 0.0)) throw std::invalid_argument("--shared-line-transfer-ns must be >= 0");
  if (!(c.private_hit_ns >= 0.0)) throw std::invalid_argument("--private-hit-ns must be >= 0");
  if (!(c.atomic_update_ns >= 0.0)) throw std::invalid_argument("--atomic-update-ns must be >= 0");
  if (!(c.llc_usable_share > 0.0 && c.llc_usable_share <= 1.0)) throw std::invalid_argument("--llc-usable-share must be in (0, 1]");
  if (!(c.llc_hit_ns >= 0.0) || !(c.scan_cycles_per_tuple >= 0.0) || !(c.hash_cycles_per_tuple >= 0.0) ||
      !(c.join_cycles_per_tuple >= 0.0) || !(c.group_cycles_per_tuple >= 0.0) || !(c.partition_join_cycles_per_tuple >= 0.0) ||
      !(c.index_cycles_per_level >= 0.0) ||
      !(c.merge_cycles_per_tuple >= 0.0) || !(c.partition_cycles_per_tuple >= 0.0) || !(c.sort_cycles_per_comparison >= 0.0) ||
      !(c.select_cycles_per_value >= 0.0) ||
      c.entry_bytes < 1) {
    throw std::invalid_argument("operator costs must be >= 0 (entry bytes >= 1)");
  }
  if (definition_.needs_a_record_per_piece) {
    const double pieces = static_cast<double>(spec_.threads) * spec_.threads;
    if (d.records < pieces) {
      throw std::invalid_argument("--records " + std::to_string(d.records) + " gives fewer than one record per piece for " +
                                  std::to_string(spec_.threads) + " threads");
    }
  }
}

// The operator's datasets, in allocation order, placed for the current thread nodes.
void OperatorBuilder::place_datasets() {
  std::vector<model::NodeIndex> nodes;
  for (const PlacedThread& p : threads_) nodes.push_back(p.node);
  MemoryPlacer placer(t_, routing_, nodes, threads_.front().node);
  datasets_.clear();
  double offset = 0.0;
  for (const DatasetRequest& r : definition_.datasets(spec_)) {
    datasets_.push_back(placer.place(r.name, r.bytes, r.kind, spec_.memory, r.worker_shares));
    if (spec_.numa_balanced_prefix_bytes > offset) {
      datasets_.back() = balanced_placement(datasets_.back(), r.kind, spec_.memory, offset,
                                            spec_.numa_balanced_prefix_bytes, nodes, r.worker_shares);
    }
    offset += r.bytes;
  }
  whole_spreads_.clear();
  for (const DataPlacement& d : datasets_) whole_spreads_.push_back(d.spread());
}

// Thread placement; "shared" moves each thread to the node holding most of its input chunk.
void OperatorBuilder::place_threads_for_data() {
  threads_ = place_threads(t_, spec_.threads, spec_.placement);
  place_datasets();
  if (spec_.placement.kind != PlacementKind::kShared) return;
  const DataPlacement& input = datasets_.front();
  std::vector<int> free_slots(t_.nodes.size(), 0);
  for (std::size_t n = 0; n < t_.nodes.size(); ++n) free_slots[n] = t_.nodes[n].hardware_threads();
  std::vector<model::NodeIndex> wanted(threads_.size(), 0);
  for (int w = 0; w < workers(); ++w) {
    std::vector<model::NodeShare> spread = input.chunk(w, workers());
    std::stable_sort(spread.begin(), spread.end(), [](const auto& a, const auto& b) { return a.fraction > b.fraction; });
    model::NodeIndex chosen = -1;
    for (const model::NodeShare& s : spread) {
      if (t_.nodes[s.node].has_cores() && free_slots[s.node] > 0) {
        chosen = s.node;
        break;
      }
    }
    if (chosen < 0) {  // the data's nodes are full: nearest node with a free hardware thread
      const model::NodeIndex home = spread.empty() ? 0 : spread.front().node;
      for (std::size_t n = 0; n < t_.nodes.size(); ++n) {
        if (free_slots[n] <= 0 || !t_.nodes[n].has_cores()) continue;
        if (chosen < 0 || routing_.access_latency_ns(static_cast<model::NodeIndex>(n), home) <
                              routing_.access_latency_ns(chosen, home)) {
          chosen = static_cast<model::NodeIndex>(n);
        }
      }
    }
    wanted[w] = chosen;
    --free_slots[chosen];
  }
  // Cores on each node: one per core first, then siblings (as dense does within a node).
  std::vector<int> used(t_.nodes.size(), 0);
  const int total_cores = t_.total_cores();
  for (int w = 0; w < workers(); ++w) {
    const model::NodeIndex n = wanted[w];
    const int slot = used[n]++;
    int first = 0;
    for (model::NodeIndex m = 0; m < n; ++m) first += t_.nodes[m].cores;
    PlacedThread p;
    p.node = n;
    p.core = first + slot % t_.nodes[n].cores;
    p.hardware_thread = slot / t_.nodes[n].cores;
    p.cpu = p.hardware_thread * total_cores + p.core;
    threads_[w] = p;
  }
  place_datasets();  // first-touch pages follow the threads' final nodes
}

const DataPlacement& OperatorBuilder::dataset(const char* name) const {
  for (const DataPlacement& d : datasets_) {
    if (d.name == name) return d;
  }
  throw std::logic_error(std::string("no dataset ") + name);
}

const SharedSpread& OperatorBuilder::spread_of(const char* name) const {
  for (std::size_t i = 0; i < datasets_.size(); ++i) {
    if (datasets_[i].name == name) return whole_spreads_.at(i);
  }
  throw std::logic_error(std::string("no dataset ") + name);
}

void OperatorBuilder::maybe_os_move(ThreadPlan& tp) {
  if (spec_.placement.kind != PlacementKind::kNone) return;
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  if (coin(os_random_) >= spec_.placement.os_move_probability) return;
  std::vector<model::NodeIndex> with_cores;
  for (std::size_t n = 0; n < t_.nodes.size(); ++n) {
    if (t_.nodes[n].has_cores()) with_cores.push_back(static_cast<model::NodeIndex>(n));
  }
  std::uniform_int_distribution<std::size_t> pick(0, with_cores.size() - 1);
  tp.ops.emplace_back(Bind{with_cores[pick(os_random_)], kOsMoveOverheadSeconds, Phase::kMigrate});
}

void OperatorBuilder::scan(ThreadPlan& tp, SharedSpread spread, double bytes, double cycles, int step, Phase phase,
                           Phase core_phase, double core_phase_share, double lines_in_flight) {
  if (bytes <= 0.0) return;
  Transfer tr;
  tr.lines_in_flight = lines_in_flight;
  tr.read_spread = std::move(spread);
  tr.bytes = bytes;
  tr.cycles_per_byte = cycles / bytes;
  tr.step = step;
  tr.phase = phase;
  tr.core_phase = core_phase;
  tr.core_phase_share = core_phase_share;
  tp.ops.emplace_back(std::move(tr));
}

double OperatorBuilder::stream_lines_in_flight(int worker, double share) const {
  if (!(share < 1.0)) return 0.0;
  return std::max(1.0, share * static_cast<double>(node_of(worker).miss_buffers_per_core));
}

void OperatorBuilder::write_stream(ThreadPlan& tp, SharedSpread spread, double bytes) {
  if (bytes <= 0.0) return;
  Transfer tr;
  tr.write_spread = std::move(spread);
  tr.bytes = bytes;
  tr.phase = Phase::kWriteOutput;
  tp.ops.emplace_back(std::move(tr));
}

void OperatorBuilder::random_misses(ThreadPlan& tp, SharedSpread table_spread, double misses, bool update,
                                    int step, Phase phase, double core_seconds, double frequency_hz) const {
  const double bytes = misses * line_bytes();
  if (bytes < 1.0) {
    if (core_seconds > 0.0) tp.ops.emplace_back(Compute{core_seconds, phase});
    return;
  }
  Transfer tr;
  (update ? tr.write_spread : tr.read_spread) = std::move(table_spread);
  tr.bytes = bytes;
  tr.lines_in_flight = spec_.costs.random_lines_in_flight;
  tr.cycles_per_byte = core_seconds > 0.0 ? core_seconds * frequency_hz / bytes : 0.0;
  tr.step = step;
  tr.phase = phase;
  tp.ops.emplace_back(std::move(tr));
}

void OperatorBuilder::dependent_accesses(ThreadPlan& tp, SharedSpread spread, double accesses, double hit,
                                         bool update, Phase phase) const {
  if (accesses * hit > 0.0) tp.ops.emplace_back(Compute{accesses * hit * spec_.costs.llc_hit_ns * 1e-9, phase, 1.0});
  const double bytes = accesses * (1.0 - hit) * line_bytes();
  if (bytes < 1.0) return;
  Transfer tr;
  (update ? tr.write_spread : tr.read_spread) = std::move(spread);
  tr.bytes = bytes;
  tr.lines_in_flight = 1.0;
  tr.phase = phase;
  tp.ops.emplace_back(std::move(tr));
}

void OperatorBuilder::page_walks(ThreadPlan& tp, double footprint_bytes, double accesses, double in_flight, model::BufferKind buffer,
                                 Phase phase) const {
  const model::PageSize page = model::page_size_of(spec_.huge_pages, buffer);
  const double ns = model::extra_translation_ns(tlb_.figures, footprint_bytes, page, in_flight);
  if (accesses * ns > 0.0) tp.ops.emplace_back(Compute{accesses * ns * 1e-9, phase});
}

void OperatorBuilder::note_pages(const std::string& what, double footprint_bytes, double in_flight, model::BufferKind buffer) {
  const model::PageSize page = model::page_size_of(spec_.huge_pages, buffer);
  if (page == model::PageSize::k2MiB) return;
  const model::TlbFigures& f = tlb_.figures;
  const double m1 = model::tlb_miss_ratio(footprint_bytes, model::tlb_reach_bytes(f.l1_entries_4k, page));
  const double m2 = model::tlb_miss_ratio(footprint_bytes, model::tlb_reach_bytes(f.stlb_entries_4k, page));
  char text[320];
  std::snprintf(text, sizeof text, "%s: huge pages %s, 4 KiB pages over %.3g MB: L1 dTLB miss %.3f, STLB miss %.3f, +%.3g ns per access (%.3g in flight)",
                what.c_str(), std::string(model::huge_pages_name(spec_.huge_pages)).c_str(), footprint_bytes / 1e6, m1, m2,
                model::extra_translation_ns(f, footprint_bytes, page, in_flight), in_flight);
  notes_.emplace_back(text);
}

void OperatorBuilder::table_loop(ThreadPlan& tp, int worker, SharedSpread scan_spread, double scan_bytes,
                                 double scan_cycles, SharedSpread table_spread, double accesses, double hit,
                                 bool update, double cycles_per_access, int step, double shared_transfers, double private_hit,
                                 bool atomic, double cold_misses) const {
  const OperatorCosts& c = spec_.costs;
  const double f = frequency_hz(worker);
  const Phase table_phase = update ? Phase::kUpdateTable : Phase::kProbeTable;
  private_hit = std::min(private_hit, hit);
  const double hit_ns = private_hit * c.private_hit_ns + (hit - private_hit) * c.llc_hit_ns;
  // Waiting on the caches: the hits' latency over the lines in flight, and lines handed over by
  // other cores.
  const double cache_seconds = accesses * (hit_ns * 1e-9 / c.random_lines_in_flight + shared_transfers * c.shared_line_transfer_ns * 1e-9);
  const double table_seconds = accesses * (cycles_per_access / f + hit_ns * 1e-9 / c.random_lines_in_flight +
                                           shared_transfers * c.shared_line_transfer_ns * 1e-9);
  const double core_seconds = scan_cycles / f + table_seconds;
  if (scan_bytes > 0.0) {
    scan(tp, std::move(scan_spread), scan_bytes, core_seconds * f, step, Phase::kReadInput, table_phase,
         core_seconds > 0.0 ? table_seconds / core_seconds : 0.0,
         stream_lines_in_flight(worker, c.table_stream_share + (1.0 - c.table_stream_share) * (1.0 - private_hit)));
    if (core_seconds > 0.0) std::get<Transfer>(tp.ops.back()).set_cache_share(cache_seconds / core_seconds);
  } else if (core_seconds > 0.0) {
    tp.ops.emplace_back(Compute{core_seconds, table_phase, cache_seconds / core_seconds});
  }
  const double misses = accesses * (1.0 - hit);
  const double cold = std::clamp(cold_misses, 0.0, misses);
  // The cold misses' transfer needs its own copy of the spread only when there is one (a line or
  // more: random_misses drops less); without, it adds nothing (no core work is given).
  random_misses(tp, cold * line_bytes() < 1.0 ? SharedSpread{} : table_spread, cold, update, step,
                Phase::kMoveState);
  // The locked updates overlap the misses (the lines were prefetched ahead): the misses' transfer
  // takes at least their time.
  const double atomic_seconds = atomic ? accesses * c.atomic_update_ns * 1e-9 : 0.0;
  random_misses(tp, std::move(table_spread), misses - cold, update, step, table_phase, atomic_seconds, f);
}

double OperatorBuilder::cached_entries(int worker, double entry_bytes, bool private_table) const {
  const model::NodeIndex n = threads_[worker].node;
  double llc = usable_llc_bytes(t_.nodes[n]);
  if (private_table) {
    int on_node = 0;
    for (const PlacedThread& p : threads_) on_node += p.node == n ? 1 : 0;
    llc /= std::max(1, on_node);
  }
  return llc / entry_bytes;
}

double OperatorBuilder::shared_line_share(int worker, const KeySpec& keys, double entry_bytes, double accesses, int updaters) const {
  if (updaters < 2) return 0.0;
  return (updaters - 1.0) / updaters * private_hit_ratio(worker, keys, entry_bytes, accesses);
}

double OperatorBuilder::private_hit_ratio(int worker, const KeySpec& keys, double entry_bytes, double accesses) const {
  const double private_entries = private_cache_bytes(node_of(worker)) / entry_bytes;
  return private_entries > 0.0 ? cache_hit_ratio(keys, private_entries, accesses) : 0.0;
}

void OperatorBuilder::note_hit(const std::string& what, double hit) {
  notes_.push_back(what + ": LLC hit ratio " + std::to_string(hit).substr(0, 6));
}

void OperatorBuilder::note_shared(const std::string& what, double share) {
  if (share > 0.0) {
    notes_.push_back(what + ": share of updates finding the line modified by another core " + std::to_string(share).substr(0, 6));
  }
}

}  // namespace numatwin::sim::operators
