#include "numatwin/sim/operator_plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <tuple>

#include "numatwin/model/routing.hpp"
#include "numatwin/sim/shuffle_plan.hpp"

namespace numatwin::sim {
namespace {

constexpr double kOsMoveOverheadSeconds = 5e-6;

// Last-level cache of a node in bytes: the largest level, times its instances on the node.
double llc_bytes(const model::Node& node) {
  double best = 0.0;
  int level = 0;
  for (const model::CacheLevel& c : node.caches) {
    if (c.level < level) continue;
    level = c.level;
    best = static_cast<double>(c.size_bytes) * std::max(1, node.cores / std::max(1, c.shared_by_cores));
  }
  return best;
}

class Builder {
 public:
  Builder(const model::Topology& t, const WorkloadSpec& spec)
      : t_(t), spec_(spec), routing_(t), os_random_(spec.placement.seed * 7919 + 17) {}

  Plan build(PlanReport* report) {
    check();
    place_threads_for_data();
    plan_.threads.resize(threads_.size());
    for (std::size_t i = 0; i < threads_.size(); ++i) plan_.threads[i].core = threads_[i].core;
    switch (spec_.kind) {
      case WorkloadKind::kCountAggregation: aggregation(false); break;
      case WorkloadKind::kMedianAggregation: aggregation(true); break;
      case WorkloadKind::kHashJoin:
        if (spec_.join_algorithm == JoinAlgorithm::kRadix) {
          radix_join();
        } else {
          hash_join();
        }
        break;
      case WorkloadKind::kIndexJoin: index_join(); break;
      case WorkloadKind::kPartitionedAggregation: partitioned_aggregation(); break;
      case WorkloadKind::kSortMergeJoin: sort_merge_join(); break;
      default: throw std::invalid_argument("workload " + workload_kind_name(spec_.kind) + " is not an operator");
    }
    if (report != nullptr) {
      report->threads = threads_;
      report->datasets = datasets_;
      report->notes = notes_;
    }
    return plan_;
  }

 private:
  [[nodiscard]] int workers() const { return static_cast<int>(threads_.size()); }
  [[nodiscard]] double line_bytes() const { return t_.performance.cache_line_bytes; }
  [[nodiscard]] double frequency_hz(int worker) const { return t_.nodes[threads_[worker].node].frequency_ghz * 1e9; }

  void check() const {
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
    if (!(c.llc_hit_ns >= 0.0) || !(c.scan_cycles_per_tuple >= 0.0) || !(c.hash_cycles_per_tuple >= 0.0) ||
        !(c.join_cycles_per_tuple >= 0.0) || !(c.group_cycles_per_tuple >= 0.0) || !(c.partition_join_cycles_per_tuple >= 0.0) ||
        !(c.merge_cycles_per_tuple >= 0.0) || !(c.partition_cycles_per_tuple >= 0.0) || !(c.sort_cycles_per_comparison >= 0.0) || c.entry_bytes < 1) {
      throw std::invalid_argument("operator costs must be >= 0 (entry bytes >= 1)");
    }
    if (spec_.kind == WorkloadKind::kPartitionedAggregation || spec_.kind == WorkloadKind::kSortMergeJoin) {
      const double pieces = static_cast<double>(spec_.threads) * spec_.threads;
      if (d.records < pieces) {
        throw std::invalid_argument("--records " + std::to_string(d.records) + " gives fewer than one record per piece for " +
                                    std::to_string(spec_.threads) + " threads");
      }
    }
  }

  // The datasets of the workload, in allocation order, placed for the current thread nodes.
  void place_datasets() {
    std::vector<model::NodeIndex> nodes;
    for (const PlacedThread& p : threads_) nodes.push_back(p.node);
    MemoryPlacer placer(t_, routing_, nodes, threads_.front().node);
    datasets_.clear();
    const DataSpec& d = spec_.data;
    const double entry = spec_.costs.entry_bytes;
    auto add = [&](const char* name, double bytes, DatasetKind kind) {
      datasets_.push_back(placer.place(name, bytes, kind, spec_.memory));
    };
    switch (spec_.kind) {
      case WorkloadKind::kCountAggregation:
      case WorkloadKind::kMedianAggregation:
        add("input", d.records * d.tuple_bytes, DatasetKind::kPartitioned);
        add("hash table", d.keys.groups * entry * 2.0, DatasetKind::kShared);
        if (spec_.kind == WorkloadKind::kMedianAggregation) add("values", d.records * 8.0, DatasetKind::kPrivate);
        break;
      case WorkloadKind::kHashJoin:
        add("R", d.build_records * d.tuple_bytes, DatasetKind::kPartitioned);
        add("S", d.records * d.tuple_bytes, DatasetKind::kPartitioned);
        if (spec_.join_algorithm == JoinAlgorithm::kRadix) {
          add("R partitions", d.build_records * d.tuple_bytes, DatasetKind::kShared);
          add("S partitions", d.records * d.tuple_bytes, DatasetKind::kShared);
        } else {
          add("hash table", d.build_records * entry * 2.0, DatasetKind::kShared);
        }
        break;
      case WorkloadKind::kIndexJoin:
        add("S", d.records * d.tuple_bytes, DatasetKind::kPartitioned);
        add("index", index_bytes(), DatasetKind::kShared);
        break;
      case WorkloadKind::kPartitionedAggregation:
        add("input", d.records * d.tuple_bytes, DatasetKind::kPartitioned);
        add("tables", d.keys.groups * entry * 2.0, DatasetKind::kPrivate);
        break;
      case WorkloadKind::kSortMergeJoin:
        add("fact runs", d.records * d.tuple_bytes, DatasetKind::kPartitioned);
        add("dimension runs", d.build_records * d.tuple_bytes, DatasetKind::kPartitioned);
        break;
      default:
        break;
    }
  }

  // Thread placement; "shared" moves each thread to the node holding most of its input chunk.
  void place_threads_for_data() {
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

  [[nodiscard]] const DataPlacement& dataset(const char* name) const {
    for (const DataPlacement& d : datasets_) {
      if (d.name == name) return d;
    }
    throw std::logic_error(std::string("no dataset ") + name);
  }

  // Index: B+-tree of 64-byte nodes holding 8 keys each, over R.
  [[nodiscard]] double index_bytes() const {
    double total = 0.0;
    for (double level = spec_.data.build_records / 8.0; level >= 1.0; level /= 8.0) total += std::ceil(level) * 64.0;
    return total + 64.0;
  }

  // The OS moves unpinned threads now and then ("none"): a Bind to a random node.
  void maybe_os_move(ThreadPlan& tp) {
    if (spec_.placement.kind != PlacementKind::kNone) return;
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    if (coin(os_random_) >= spec_.placement.os_move_probability) return;
    std::vector<model::NodeIndex> with_cores;
    for (std::size_t n = 0; n < t_.nodes.size(); ++n) {
      if (t_.nodes[n].has_cores()) with_cores.push_back(static_cast<model::NodeIndex>(n));
    }
    std::uniform_int_distribution<std::size_t> pick(0, with_cores.size() - 1);
    tp.ops.emplace_back(Bind{with_cores[pick(os_random_)], kOsMoveOverheadSeconds});
  }

  void scan(ThreadPlan& tp, std::vector<model::NodeShare> spread, double bytes, double cycles, int step = -1) {
    if (bytes <= 0.0) return;
    Transfer tr;
    tr.read_spread = std::move(spread);
    tr.bytes = bytes;
    tr.cycles_per_byte = cycles / bytes;
    tr.step = step;
    tp.ops.emplace_back(std::move(tr));
  }

  void write_stream(ThreadPlan& tp, std::vector<model::NodeShare> spread, double bytes) {
    if (bytes <= 0.0) return;
    Transfer tr;
    tr.write_spread = std::move(spread);
    tr.bytes = bytes;
    tp.ops.emplace_back(std::move(tr));
  }

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
  // max(bytes / bandwidth, core work). The accesses that miss the LLC then follow as their own
  // latency-bound transfer (random_lines_in_flight misses in flight); updates read the line for
  // ownership and write it back.
  void table_loop(ThreadPlan& tp, int worker, std::vector<model::NodeShare> scan_spread, double scan_bytes, double scan_cycles,
                  std::vector<model::NodeShare> table_spread, double accesses, double hit, bool update, double cycles_per_access,
                  int step = -1, double shared_transfers = 0.0, double private_hit = 0.0, bool atomic = false) {
    const OperatorCosts& c = spec_.costs;
    const double f = frequency_hz(worker);
    private_hit = std::min(private_hit, hit);
    const double hit_ns = private_hit * c.private_hit_ns + (hit - private_hit) * c.llc_hit_ns;
    const double core_seconds = scan_cycles / f +
                                accesses * (cycles_per_access / f + hit_ns * 1e-9 / c.random_lines_in_flight +
                                            shared_transfers * c.shared_line_transfer_ns * 1e-9 +
                                            (atomic ? c.atomic_update_ns * 1e-9 : 0.0));
    if (scan_bytes > 0.0) {
      scan(tp, std::move(scan_spread), scan_bytes, core_seconds * f, step);
    } else if (core_seconds > 0.0) {
      tp.ops.emplace_back(Compute{core_seconds});
    }
    const double misses = accesses * (1.0 - hit);
    const double bytes = misses * line_bytes();
    if (bytes < 1.0) return;
    Transfer tr;
    (update ? tr.write_spread : tr.read_spread) = std::move(table_spread);
    tr.bytes = bytes;
    tr.lines_in_flight = c.random_lines_in_flight;
    tr.step = step;
    tp.ops.emplace_back(std::move(tr));
  }

  // Entries of a table that the LLC of `worker`'s node holds; `private_table`: the LLC is split
  // between the node's workers, each with its own table.
  [[nodiscard]] double cached_entries(int worker, double entry_bytes, bool private_table) const {
    const model::NodeIndex n = threads_[worker].node;
    double llc = llc_bytes(t_.nodes[n]);
    if (private_table) {
      int on_node = 0;
      for (const PlacedThread& p : threads_) on_node += p.node == n ? 1 : 0;
      llc /= std::max(1, on_node);
    }
    return llc / entry_bytes;
  }

  // Atomic updates by `updaters` workers of one shared table of entries of `entry_bytes`: the
  // share of updates whose line another worker modified last and still holds in its private
  // cache: (k - 1) / k x the chance that the line is in a private cache, which is the cache hit
  // ratio of the key distribution for a cache of the private cache's size (key_distribution.hpp).
  [[nodiscard]] double shared_line_share(int worker, const KeySpec& keys, double entry_bytes, double accesses, int updaters) const {
    if (updaters < 2) return 0.0;
    return (updaters - 1.0) / updaters * private_hit_ratio(worker, keys, entry_bytes, accesses);
  }

  // The share of `accesses` random accesses to a table of entries of `entry_bytes` that hit the
  // core's own cache (key_distribution.hpp with the private cache's size).
  [[nodiscard]] double private_hit_ratio(int worker, const KeySpec& keys, double entry_bytes, double accesses) const {
    const double private_entries = private_cache_bytes(t_.nodes[threads_[worker].node]) / entry_bytes;
    return private_entries > 0.0 ? cache_hit_ratio(keys, private_entries, accesses) : 0.0;
  }

  void note_hit(const std::string& what, double hit) {
    notes_.push_back(what + ": LLC hit ratio " + std::to_string(hit).substr(0, 6));
  }

  void note_shared(const std::string& what, double share) {
    if (share > 0.0) notes_.push_back(what + ": share of updates finding the line modified by another core " + std::to_string(share).substr(0, 6));
  }

  void aggregation(bool median) {
    const DataSpec& d = spec_.data;
    const OperatorCosts& c = spec_.costs;
    const DataPlacement& input = dataset("input");
    const DataPlacement& table = dataset("hash table");
    const int n = workers();
    const double per_worker = d.records / n;
    // MEDIAN keeps the values: each update appends to its group's tail line (one line per group);
    // COUNT updates one entry of entry_bytes.
    const double entry = median ? line_bytes() : static_cast<double>(c.entry_bytes);
    for (int w = 0; w < n; ++w) {
      ThreadPlan& tp = plan_.threads[w];
      const double hit = cache_hit_ratio(d.keys, cached_entries(w, entry, false), d.records);
      const double shared = shared_line_share(w, d.keys, entry, d.records, n);
      const double own = private_hit_ratio(w, d.keys, entry, d.records);
      if (w == 0) {
        note_hit(median ? "group tails" : "hash table", hit);
        note_shared(median ? "group tails" : "hash table", shared);
      }
      const std::vector<model::NodeShare> chunk = input.chunk(w, n);
      for (int b = 0; b < kBatches; ++b) {
        table_loop(tp, w, chunk, per_worker / kBatches * d.tuple_bytes, per_worker / kBatches * c.scan_cycles_per_tuple,
                   table.spread(), per_worker / kBatches, hit, true, c.hash_cycles_per_tuple, -1, shared, own, n > 1);
        if (median) write_stream(tp, dataset("values").chunk(w, n), per_worker / kBatches * 8.0);
        maybe_os_move(tp);
      }
      if (median) {
        // Phase 2: each worker takes G / n groups, reads their values and sorts them.
        tp.ops.emplace_back(Barrier{});
        const double values = d.records / n;
        const double per_group = std::max(2.0, d.records / d.keys.groups);
        const double cycles = values * std::log2(per_group) * c.sort_cycles_per_comparison;
        scan(tp, dataset("values").spread(), values * 8.0, cycles);
      }
    }
  }

  void hash_join() {
    const DataSpec& d = spec_.data;
    const OperatorCosts& c = spec_.costs;
    const int n = workers();
    const DataPlacement& r = dataset("R");
    const DataPlacement& s = dataset("S");
    const DataPlacement& table = dataset("hash table");
    KeySpec build_keys = d.keys;  // R's keys are distinct
    build_keys.distribution = KeyDistribution::kUniform;
    build_keys.groups = d.build_records;
    KeySpec probe_keys = d.keys;
    probe_keys.groups = d.build_records;
    for (int w = 0; w < n; ++w) {
      ThreadPlan& tp = plan_.threads[w];
      const double cached = cached_entries(w, c.entry_bytes * 2.0, false);
      const double build_hit = cache_hit_ratio(build_keys, cached, d.build_records);
      const double probe_hit = cache_hit_ratio(probe_keys, cached, d.records);
      const double build_shared = shared_line_share(w, build_keys, c.entry_bytes * 2.0, d.build_records, n);
      const double build_own = private_hit_ratio(w, build_keys, c.entry_bytes * 2.0, d.build_records);
      const double probe_own = private_hit_ratio(w, probe_keys, c.entry_bytes * 2.0, d.records);
      if (w == 0) {
        note_hit("build", build_hit);
        note_hit("probe", probe_hit);
        note_shared("build", build_shared);
      }
      for (int b = 0; b < kBatches; ++b) {
        const double tuples = d.build_records / n / kBatches;
        table_loop(tp, w, r.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, table.spread(), tuples,
                   build_hit, true, c.join_cycles_per_tuple, -1, build_shared, build_own, n > 1);
        maybe_os_move(tp);
      }
      tp.ops.emplace_back(Barrier{});
      for (int b = 0; b < kBatches; ++b) {
        const double tuples = d.records / n / kBatches;
        table_loop(tp, w, s.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, table.spread(), tuples,
                   probe_hit, false, c.join_cycles_per_tuple, -1, 0.0, probe_own);
        maybe_os_move(tp);
      }
    }
  }

  // Radix join (workload_spec.hpp, JoinAlgorithm::kRadix), three phases with a barrier between:
  //   histogram  scan of the worker's chunks of R and S, scan_cycles_per_tuple each;
  //   scatter    copy of the chunks into the partitioned copies R' and S' (every worker writes to
  //              every partition: the whole copy's spread), partition_cycles_per_tuple each;
  //              (the real kernel writes full lines with streaming stores, which skip the read
  //              for ownership that the model's writes include: the model overstates the
  //              scatter's memory traffic by that read, a third of its copy traffic);
  //   join       each worker takes 1 / n of the partitions (dynamically, in the kernel): a scan
  //              of its share of R' building a private table (partition_join_cycles_per_tuple: a
  //              small table's loop, without the misses a large one must hide; hits in the
  //              private cache), then of S' probing it. A partition's table of 2 |R_p| entries is
  //              cached in the core's private cache, else the LLC, else memory, in the ratio of
  //              the cache to the table (radix_partition_bits sizes it to half the private cache).
  void radix_join() {
    const DataSpec& d = spec_.data;
    const OperatorCosts& c = spec_.costs;
    const int n = workers();
    const DataPlacement& r = dataset("R");
    const DataPlacement& s = dataset("S");
    const DataPlacement& r_parts = dataset("R partitions");
    const DataPlacement& s_parts = dataset("S partitions");
    for (int w = 0; w < n; ++w) {
      ThreadPlan& tp = plan_.threads[w];
      const model::Node& node = t_.nodes[threads_[w].node];
      const int bits = radix_partition_bits(d.build_records, private_cache_bytes(node), c.entry_bytes);
      const double table_bytes = std::max(1.0, d.build_records / std::ldexp(1.0, bits)) * 2.0 * c.entry_bytes;
      const double own = std::min(1.0, private_cache_bytes(node) / table_bytes);
      const double hit = std::min(1.0, cached_entries(w, c.entry_bytes * 2.0, true) * c.entry_bytes * 2.0 / table_bytes);
      if (w == 0) {
        notes_.push_back("radix join: " + std::to_string(bits) + " partition bits; a partition's table " +
                         std::to_string(table_bytes / 1024.0).substr(0, 7) + " KiB, private-cache hit ratio " +
                         std::to_string(own).substr(0, 6));
      }
      const double r_tuples = d.build_records / n;
      const double s_tuples = d.records / n;
      scan(tp, r.chunk(w, n), r_tuples * d.tuple_bytes, r_tuples * c.scan_cycles_per_tuple);
      scan(tp, s.chunk(w, n), s_tuples * d.tuple_bytes, s_tuples * c.scan_cycles_per_tuple);
      tp.ops.emplace_back(Barrier{});
      for (const auto& [in, out, tuples] : {std::tuple{&r, &r_parts, r_tuples}, std::tuple{&s, &s_parts, s_tuples}}) {
        Transfer tr;
        tr.read_spread = in->chunk(w, n);
        tr.write_spread = out->spread();
        tr.bytes = tuples * d.tuple_bytes;
        tr.cycles_per_byte = c.partition_cycles_per_tuple / d.tuple_bytes;
        tp.ops.emplace_back(std::move(tr));
        maybe_os_move(tp);
      }
      tp.ops.emplace_back(Barrier{});
      table_loop(tp, w, r_parts.chunk(w, n), r_tuples * d.tuple_bytes, r_tuples * c.scan_cycles_per_tuple, r_parts.chunk(w, n),
                 r_tuples, hit, true, c.partition_join_cycles_per_tuple, -1, 0.0, own);
      table_loop(tp, w, s_parts.chunk(w, n), s_tuples * d.tuple_bytes, s_tuples * c.scan_cycles_per_tuple, r_parts.chunk(w, n),
                 s_tuples, hit, false, c.partition_join_cycles_per_tuple, -1, 0.0, own);
    }
  }

  void index_join() {
    const DataSpec& d = spec_.data;
    const OperatorCosts& c = spec_.costs;
    const int n = workers();
    const DataPlacement& s = dataset("S");
    const DataPlacement& index = dataset("index");
    // Levels of 8^i nodes of 64 bytes; the top levels that fit in the LLC hit, the rest miss.
    int depth = 1;
    for (double level = d.build_records / 8.0; level > 1.0; level /= 8.0) ++depth;
    for (int w = 0; w < n; ++w) {
      ThreadPlan& tp = plan_.threads[w];
      const double llc = llc_bytes(t_.nodes[threads_[w].node]);
      int cached_levels = 0;
      double cumulative = 0.0;
      for (int l = 0; l < depth; ++l) {
        cumulative += std::pow(8.0, l) * 64.0;
        if (cumulative > llc) break;
        ++cached_levels;
      }
      const double hit = static_cast<double>(cached_levels) / depth;
      if (w == 0) notes_.push_back("index depth " + std::to_string(depth) + ", " + std::to_string(cached_levels) + " levels in the LLC");
      for (int b = 0; b < kBatches; ++b) {
        const double tuples = d.records / n / kBatches;
        table_loop(tp, w, s.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, index.spread(),
                   tuples * depth, hit, false, c.join_cycles_per_tuple / depth);
        maybe_os_move(tp);
      }
    }
  }

  void partitioned_aggregation() {
    const DataSpec& d = spec_.data;
    const OperatorCosts& c = spec_.costs;
    const int n = workers();
    const DataPlacement& input = dataset("input");
    const DataPlacement& tables = dataset("tables");
    const ShuffleOrder order = shuffle_order(threads_, spec_.algorithm, spec_.seed);
    const double piece_records = d.records / (static_cast<double>(n) * n);
    const double table_bytes = d.keys.groups / n * c.entry_bytes * 2.0;
    const double table_lines = std::ceil(table_bytes / line_bytes());
    KeySpec keys = d.keys;
    keys.groups = std::max(1.0, d.keys.groups / n);
    plan_.steps = n;
    for (int o = 0; o < n; ++o) {
      const int w = order.outer[o];
      ThreadPlan& tp = plan_.threads[w];
      const double hit = cache_hit_ratio(keys, cached_entries(w, c.entry_bytes * 2.0, true), d.records / n);
      const double own = private_hit_ratio(w, keys, c.entry_bytes * 2.0, d.records / n);
      if (o == 0) note_hit("partition table (in place)", hit);
      const std::vector<model::NodeShare> home_table = tables.chunk(w, n);
      model::NodeIndex here = threads_[w].node;
      for (int k = 0; const int producer : order.producers[o]) {
        const std::vector<model::NodeShare> piece = input.chunk(producer, n);
        const model::NodeIndex data_node = std::max_element(piece.begin(), piece.end(), [](const auto& a, const auto& b) {
                                             return a.fraction < b.fraction;
                                           })->node;
        switch (spec_.strategy) {
          case PartitionStrategy::kShuffle:
            table_loop(tp, w, piece, piece_records * d.tuple_bytes, piece_records * c.scan_cycles_per_tuple, home_table,
                       piece_records, hit, true, c.group_cycles_per_tuple, k, 0.0, own);
            break;
          case PartitionStrategy::kMigration:
          case PartitionStrategy::kMigrationAndCopy: {
            const bool copy = spec_.strategy == PartitionStrategy::kMigrationAndCopy;
            if (data_node != here && t_.nodes[data_node].has_cores()) {
              if (copy) {
                Transfer tr;
                tr.read_node = here;
                tr.write_node = data_node;
                tr.bytes = table_bytes;
                tr.step = k;
                tp.ops.emplace_back(std::move(tr));
              }
              tp.ops.emplace_back(Bind{data_node, spec_.migration_overhead_seconds});
              here = data_node;
            }
            // After a move the table is cold in this node's cache: its lines come in once per step
            // (or every access misses if the table is larger than the cache share).
            const double cold = hit >= 1.0 ? std::min(1.0, table_lines / piece_records) : 1.0 - hit;
            const std::vector<model::NodeShare> table_now =
                copy ? std::vector<model::NodeShare>{model::NodeShare{here, 1.0}} : home_table;
            table_loop(tp, w, piece, piece_records * d.tuple_bytes, piece_records * c.scan_cycles_per_tuple, table_now,
                       piece_records, 1.0 - cold, true, c.group_cycles_per_tuple, k, 0.0, std::min(own, 1.0 - cold));
            break;
          }
        }
        if (spec_.sync == SyncMode::kTight) tp.ops.emplace_back(Barrier{});
        maybe_os_move(tp);
        ++k;
      }
    }
  }

  void sort_merge_join() {
    const DataSpec& d = spec_.data;
    const OperatorCosts& c = spec_.costs;
    const int n = workers();
    const DataPlacement& facts = dataset("fact runs");
    const DataPlacement& dims = dataset("dimension runs");
    const ShuffleOrder order = shuffle_order(threads_, spec_.algorithm, spec_.seed);
    const double fact_piece = d.records / (static_cast<double>(n) * n);
    const double dim_run = d.build_records / n;
    plan_.steps = n;
    for (int o = 0; o < n; ++o) {
      const int w = order.outer[o];
      ThreadPlan& tp = plan_.threads[w];
      for (int k = 0; const int producer : order.producers[o]) {
        // Merge the producer's fact range for this worker with the worker's whole dimension run.
        scan(tp, facts.chunk(producer, n), fact_piece * d.tuple_bytes, fact_piece * c.merge_cycles_per_tuple, k);
        scan(tp, dims.chunk(w, n), dim_run * d.tuple_bytes, dim_run * c.scan_cycles_per_tuple, k);
        if (spec_.sync == SyncMode::kTight) tp.ops.emplace_back(Barrier{});
        maybe_os_move(tp);
        ++k;
      }
    }
  }

  const model::Topology& t_;
  const WorkloadSpec& spec_;
  model::Routing routing_;
  std::mt19937_64 os_random_;
  std::vector<PlacedThread> threads_;
  std::vector<DataPlacement> datasets_;
  std::vector<std::string> notes_;
  Plan plan_;
};

}  // namespace

double private_cache_bytes(const model::Node& node) {
  double best = 0.0;
  for (const model::CacheLevel& c : node.caches)
    if (c.shared_by_cores <= 1) best = std::max(best, static_cast<double>(c.size_bytes));
  return best;
}

int radix_partition_bits(double build_records, double cache_bytes, int entry_bytes) {
  const double per_partition = std::max(1.0, std::floor(std::max(cache_bytes, 0.0) / 2.0 / (2.0 * std::max(1, entry_bytes))));
  int bits = 0;
  while (bits < kMaxRadixBits && build_records / std::ldexp(1.0, bits) > per_partition) ++bits;
  return bits;
}

Plan build_operator_plan(const model::Topology& topology, const WorkloadSpec& spec, PlanReport* report) {
  return Builder(topology, spec).build(report);
}

Plan build_plan(const model::Topology& topology, const WorkloadSpec& spec, PlanReport* report) {
  if (!is_shuffle_family(spec.kind)) return build_operator_plan(topology, spec, report);
  Plan plan = build_shuffle_plan(topology, spec);
  if (report != nullptr) report->threads = place_threads(topology, spec.threads, spec.placement);
  return plan;
}

}  // namespace numatwin::sim
