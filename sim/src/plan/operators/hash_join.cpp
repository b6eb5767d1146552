// The non-partitioned hash join (Memarzia et al.'s W3): build one shared table on R, then probe
// it with S, a barrier between.
//
// Datasets: R and S (partitioned over the workers), hash table (shared, 2 |R| entries of
// entry_bytes: half full).
// Per worker w of n, in kBatches batches each:
//   build    a table loop over chunk w of R: |R| / n scanned tuples (scan_cycles_per_tuple) and
//            as many updates (join_cycles_per_tuple); R's keys are distinct, so the LLC hit
//            ratio is that of uniform keys over |R| entries; with n > 1 the updates are locked
//            (atomic_update_ns) and a share (n - 1) / n x h_private finds its line modified by
//            another core (shared_line_transfer_ns);
//   probe    a table loop over chunk w of S: |S| / n reads of the table with S's key
//            distribution over |R| keys (join_cycles_per_tuple), no updates.
//
// With --allocation per-bucket (the chained table of validate/allocating_kernels.hpp; counts and
// costs in sim/plan/allocation_costs.hpp): the table is B buckets of 32 bytes (a key occupies
// 32 B / lambda of it, lambda = |R| / B) and the dataset "overflow nodes" holds the M nodes, 32
// bytes each (their size class) times the allocator's overhead ratio.
//   hashes   the chained loops hash with the splitmix64 finaliser, three per probe and two per
//            build tuple, where the join cycles (from the preallocated loop) hold one multiply
//            hash: with the grid, (3 - 1) and (2 - 1) x its work_unit_ns more core time per probe
//            and build tuple (allocation_costs.hpp);
//   build    as above over the buckets, plus per worker M / n node writes (a write stream: an
//            allocator hands a thread's same-sized objects out of the same pages, one after the
//            other) and the mallocs' time M / n x malloc_ns(T, 24);
//   probe    as above over the buckets (their LLC hits and the nodes' from the share of the
//            usable LLC each keeps while both are read, Che's approximation with 1 bucket and
//            M / |R| + D node reads per probe: model/cache_sharing.hpp), plus per probe M / |R|
//            first-node reads (prefetched:
//            random misses as the table's) and D dependent deeper-node reads (one at a time:
//            OperatorBuilder::dependent_accesses; or, when the allocator's entry has its layout
//            figures, h x llc_hit_ns + (1 - h) x the measured dependent read, node_read_cost,
//            its translation included; or, when the topology has the dependent-miss grid
//            (/dependent_misses), h x llc_hit_ns + (1 - h) x miss_ns(k, w) at the probe's own
//            k = 1 / q probes per probe with a deeper node and w = its three splitmix64 finalisers
//            (the grid's unit), allocation_costs.hpp; when the grid has its second-miss figure,
//            the D - q nodes behind another in the same probe cost second_miss_ns(k, w) instead;
//            nodes across two lines add split_node_cost per probe, allocation_costs.hpp),
//            D from allocation_costs.hpp; both over the M nodes (the LLC hit ratio h of uniform
//            accesses over M nodes of 32 bytes);
//   free     each worker walks its slice's chains (M / n random node reads) and frees the nodes:
//            M / n x ((1 / n) free_ns + ((n - 1) / n) remote_free_ns), plus, when measured, what a
//            free out of allocation order costs more (allocation_costs.hpp).
// Pages (model/tlb.hpp, OperatorBuilder::page_walks): every build and probe access to the table
// (a placed dataset) and every node visit (the allocator's heap; the deeper nodes one at a time)
// adds what its buffer's pages cost in translation over 2 MiB pages.
#include <algorithm>

#include "numatwin/model/cache_sharing.hpp"
#include "numatwin/sim/plan/allocation_costs.hpp"
#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

bool per_bucket(const WorkloadSpec& spec) { return spec.allocation == Allocation::kPerBucket; }

double overhead(const WorkloadSpec& spec) {
  return spec.allocator_costs ? std::max(1.0, spec.allocator_costs->overhead_ratio) : 1.0;
}

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  if (per_bucket(spec)) {
    return {
        {"R", d.build_records * d.tuple_bytes, DatasetKind::kPartitioned},
        {"S", d.records * d.tuple_bytes, DatasetKind::kPartitioned},
        {"hash table", chained_bucket_count(d.build_records) * 32.0, DatasetKind::kShared},
        {"overflow nodes", std::max(32.0, expected_overflow_nodes(d.build_records) * 32.0 * overhead(spec)), DatasetKind::kShared},
    };
  }
  return {
      {"R", d.build_records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"S", d.records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"hash table", d.build_records * spec.costs.entry_bytes * 2.0, DatasetKind::kShared},
  };
}

void plan_per_bucket(OperatorBuilder& b) {
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const DataPlacement& r = b.dataset("R");
  const DataPlacement& s = b.dataset("S");
  const DataPlacement& table = b.dataset("hash table");
  const DataPlacement& nodes = b.dataset("overflow nodes");
  const double buckets = chained_bucket_count(d.build_records);
  const double lambda = d.build_records / buckets;  // tuples per bucket
  const double node_count = expected_overflow_nodes(d.build_records);
  const AllocationSeconds alloc = per_bucket_allocation(b.spec(), n);
  const double deeper = dependent_node_visits(d.build_records);
  DependentCost deep = node_read_cost(b.spec(), n);
  const double first_deeper = probes_with_deeper_nodes(d.build_records);
  const double probes_per_deep = 1.0 / std::max(1e-9, first_deeper);
  // The chained loops' finalisers beyond the preallocated loop's one hash (allocation_costs.hpp),
  // at the grid's measured work unit; without the grid no unit is measured and none is added.
  const std::optional<model::DependentMissGrid>& miss_grid = b.topology().dependent_misses;
  const double unit_ns = miss_grid && !miss_grid->points.empty() ? miss_grid->work_unit_ns : 0.0;
  const double probe_hash_ns = (kChainedProbeFinalisers - 1.0) * unit_ns;
  const double build_hash_ns = (kChainedBuildFinalisers - 1.0) * unit_ns;
  if (unit_ns > 0.0) {
    b.note("chained loops' hashes: " + std::to_string(static_cast<int>(kChainedProbeFinalisers)) + " splitmix64 finalisers per probe, " +
           std::to_string(static_cast<int>(kChainedBuildFinalisers)) + " per build tuple, " + std::to_string(unit_ns).substr(0, 5) +
           " ns each (the grid's work unit); beyond the preallocated loop's one hash: +" + std::to_string(probe_hash_ns).substr(0, 5) +
           " ns per probe, +" + std::to_string(build_hash_ns).substr(0, 5) + " ns per build tuple");
  }
  // With the grid's second-miss figure, the D - q nodes behind another in the same probe cost it
  // and the q first ones miss_ns; without it all D cost miss_ns.
  double behind = 0.0;
  double behind_ns = 0.0;
  if (const std::optional<GridMiss> grid = grid_miss(miss_grid, probes_per_deep, kChainedProbeFinalisers)) {
    deep = DependentCost{true, grid->first_ns};
    if (grid->second_ns) {
      behind = std::max(0.0, deeper - first_deeper);
      behind_ns = *grid->second_ns;
      b.note("deeper chain nodes behind another in the same probe (" + std::to_string(behind).substr(0, 5) + " per probe): " +
             std::to_string(behind_ns).substr(0, 6) + " ns per LLC miss, the grid's second miss");
    }
    b.note("deeper chain nodes: " + std::to_string(grid->first_ns).substr(0, 6) + " ns per LLC miss from the dependent-miss grid at k = " +
           std::to_string(probes_per_deep).substr(0, 4) + " probes per probe with one, w = " +
           std::to_string(static_cast<int>(kChainedProbeFinalisers)) + " work units (the probe's finalisers)");
  }
  const std::optional<SplitNodes> split = split_node_cost(b.spec(), miss_grid, d.build_records, kChainedProbeFinalisers);
  if (split) {
    b.note("overflow nodes across two 64-byte lines: " + std::to_string(100.0 * split->share).substr(0, 4) + " % (allocbench: " +
           std::to_string(100.0 * split->low_share).substr(0, 4) + ".." + std::to_string(100.0 * split->high_share).substr(0, 4) +
           " % over the phases it hands 24-byte blocks out at), " + std::to_string(split->ns_per_probe).substr(0, 5) + " ns per probe per LLC miss");
  }
  b.note(std::string("allocator ") + b.spec().allocator + (alloc.rests_on_defaults ? " (model defaults)" : "") + ": " +
         std::to_string(static_cast<long long>(node_count)) + " overflow nodes expected in " +
         std::to_string(static_cast<long long>(buckets)) + " buckets");
  KeySpec build_keys = d.keys;
  build_keys.distribution = KeyDistribution::kUniform;
  build_keys.groups = d.build_records;
  KeySpec probe_keys = d.keys;
  probe_keys.groups = d.build_records;
  KeySpec node_keys;
  node_keys.distribution = KeyDistribution::kUniform;
  node_keys.groups = std::max(1.0, node_count);
  const double key_bytes = 32.0 / lambda;
  for (int w = 0; w < n; ++w) {
    ThreadPlan& tp = b.thread_plan(w);
    const double cached = b.cached_entries(w, key_bytes, false);
    const double build_hit = cache_hit_ratio(build_keys, cached, d.build_records);
    // The probe reads the buckets and the nodes at once: they share the LLC (Che's approximation,
    // model/cache_sharing.hpp), 1 bucket and M / |R| + D node reads per probe.
    const std::vector<double> shared_lines = model::che_cache_shares(
        b.cached_entries(w, 64.0, false),
        {{buckets * 32.0 / 64.0, 1.0}, {std::max(1.0, node_count * 32.0 / 64.0), node_count / d.build_records + deeper}});
    const double probe_hit = cache_hit_ratio(probe_keys, shared_lines[0] * 64.0 / key_bytes, d.records);
    const double build_shared = b.shared_line_share(w, build_keys, key_bytes, d.build_records, n);
    const double build_own = b.private_hit_ratio(w, build_keys, key_bytes, d.build_records);
    const double probe_own = b.private_hit_ratio(w, probe_keys, key_bytes, d.records);
    const double node_hit = cache_hit_ratio(node_keys, shared_lines[1] * 64.0 / 32.0, d.records);
    const double node_own = b.private_hit_ratio(w, node_keys, 32.0, d.records);
    if (w == 0) {
      b.note_hit("build", build_hit);
      b.note_hit("probe", probe_hit);
      b.note_hit("overflow nodes", node_hit);
      b.note_shared("build", build_shared);
      b.note_pages("buckets", table.size_bytes, c.random_lines_in_flight, model::BufferKind::kPlaced);
      b.note_pages("overflow nodes (allocator heap)", nodes.size_bytes, 1.0, model::BufferKind::kAllocatorHeap);
    }
    for (int batch = 0; batch < kBatches; ++batch) {
      const double tuples = d.build_records / n / kBatches;
      b.table_loop(tp, w, r.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, b.spread_of("hash table"), tuples,
                   build_hit, true, c.join_cycles_per_tuple, -1, build_shared, build_own, n > 1);
      b.table_page_walks(tp, table.size_bytes, tuples, model::BufferKind::kPlaced, Phase::kUpdateTable);
      if (build_hash_ns > 0.0) tp.ops.emplace_back(Compute{tuples * build_hash_ns * 1e-9, Phase::kUpdateTable});
      OperatorBuilder::write_stream(tp, b.spread_of("overflow nodes"), node_count / n / kBatches * 32.0);
      tp.ops.emplace_back(Compute{alloc.allocate_s / n / kBatches, Phase::kUpdateTable});
      b.maybe_os_move(tp);
    }
    tp.ops.emplace_back(Barrier{});
    for (int batch = 0; batch < kBatches; ++batch) {
      const double tuples = d.records / n / kBatches;
      b.table_loop(tp, w, s.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, b.spread_of("hash table"), tuples,
                   probe_hit, false, c.join_cycles_per_tuple, -1, 0.0, probe_own);
      if (probe_hash_ns > 0.0) tp.ops.emplace_back(Compute{tuples * probe_hash_ns * 1e-9, Phase::kProbeTable});
      b.table_loop(tp, w, {}, 0.0, 0.0, b.spread_of("overflow nodes"), tuples * node_count / d.build_records, node_hit, false, 0.0, -1, 0.0,
                   node_own);
      if (deep.measured) {  // measured (the grid or the allocator's dependent read), its translation included
        const double miss_ns = (deeper - behind) * deep.ns + behind * behind_ns;
        const double split_ns = split ? split->ns_per_probe : 0.0;
        const double cache_ns = deeper * node_hit * c.llc_hit_ns;
        const double memory_ns = (1.0 - node_hit) * (miss_ns + split_ns);
        const double all_ns = cache_ns + memory_ns;
        tp.ops.emplace_back(Compute{tuples * all_ns * 1e-9, Phase::kProbeTable, all_ns > 0.0 ? cache_ns / all_ns : 0.0,
                                    all_ns > 0.0 ? memory_ns / all_ns : 0.0});
      } else {
        b.dependent_accesses(tp, b.spread_of("overflow nodes"), tuples * deeper, node_hit, false, Phase::kProbeTable);
      }
      b.table_page_walks(tp, table.size_bytes, tuples, model::BufferKind::kPlaced, Phase::kProbeTable);
      b.table_page_walks(tp, nodes.size_bytes, tuples * node_count / d.build_records, model::BufferKind::kAllocatorHeap,
                         Phase::kProbeTable);
      if (!deep.measured) b.page_walks(tp, nodes.size_bytes, tuples * deeper, 1.0, model::BufferKind::kAllocatorHeap, Phase::kProbeTable);
      b.maybe_os_move(tp);
    }
    tp.ops.emplace_back(Barrier{});
    b.table_loop(tp, w, table.chunk(w, n), buckets / n * 32.0, 0.0, b.spread_of("overflow nodes"), node_count / n, node_hit, false, 0.0, -1,
                 0.0, node_own);
    b.table_page_walks(tp, nodes.size_bytes, node_count / n, model::BufferKind::kAllocatorHeap, Phase::kOther);
    tp.ops.emplace_back(Compute{alloc.free_s / n, Phase::kOther});
  }
}

void plan(OperatorBuilder& b) {
  if (per_bucket(b.spec())) {
    plan_per_bucket(b);
    return;
  }
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const DataPlacement& r = b.dataset("R");
  const DataPlacement& s = b.dataset("S");
  const DataPlacement& table = b.dataset("hash table");
  KeySpec build_keys = d.keys;  // R's keys are distinct
  build_keys.distribution = KeyDistribution::kUniform;
  build_keys.groups = d.build_records;
  KeySpec probe_keys = d.keys;
  probe_keys.groups = d.build_records;
  for (int w = 0; w < n; ++w) {
    ThreadPlan& tp = b.thread_plan(w);
    const double cached = b.cached_entries(w, c.entry_bytes * 2.0, false);
    const double build_hit = cache_hit_ratio(build_keys, cached, d.build_records);
    const double probe_hit = cache_hit_ratio(probe_keys, cached, d.records);
    const double build_shared = b.shared_line_share(w, build_keys, c.entry_bytes * 2.0, d.build_records, n);
    const double build_own = b.private_hit_ratio(w, build_keys, c.entry_bytes * 2.0, d.build_records);
    const double probe_own = b.private_hit_ratio(w, probe_keys, c.entry_bytes * 2.0, d.records);
    if (w == 0) {
      b.note_hit("build", build_hit);
      b.note_hit("probe", probe_hit);
      b.note_shared("build", build_shared);
      b.note_pages("hash table", table.size_bytes, c.random_lines_in_flight, model::BufferKind::kPlaced);
    }
    for (int batch = 0; batch < kBatches; ++batch) {
      const double tuples = d.build_records / n / kBatches;
      b.table_loop(tp, w, r.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, b.spread_of("hash table"), tuples,
                   build_hit, true, c.join_cycles_per_tuple, -1, build_shared, build_own, n > 1);
      b.table_page_walks(tp, table.size_bytes, tuples, model::BufferKind::kPlaced, Phase::kUpdateTable);
      b.maybe_os_move(tp);
    }
    tp.ops.emplace_back(Barrier{});
    for (int batch = 0; batch < kBatches; ++batch) {
      const double tuples = d.records / n / kBatches;
      b.table_loop(tp, w, s.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, b.spread_of("hash table"), tuples,
                   probe_hit, false, c.join_cycles_per_tuple, -1, 0.0, probe_own);
      b.table_page_walks(tp, table.size_bytes, tuples, model::BufferKind::kPlaced, Phase::kProbeTable);
      b.maybe_os_move(tp);
    }
  }
}

}  // namespace

OperatorDefinition hash_join_operator() {
  return OperatorDefinition{datasets, plan};
}

}  // namespace numatwin::sim::operators
