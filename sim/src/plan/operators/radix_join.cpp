// The radix join (workload_spec.hpp, JoinAlgorithm::kRadix; Balkesen et al.), three phases with
// a barrier between:
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
// Datasets: R and S (partitioned), their partitioned copies "R partitions" and "S partitions"
// (shared: every worker writes to every partition).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  return {
      {"R", d.build_records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"S", d.records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"R partitions", d.build_records * d.tuple_bytes, DatasetKind::kShared},
      {"S partitions", d.records * d.tuple_bytes, DatasetKind::kShared},
  };
}

void plan(OperatorBuilder& b) {
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const DataPlacement& r = b.dataset("R");
  const DataPlacement& s = b.dataset("S");
  const DataPlacement& r_parts = b.dataset("R partitions");
  const DataPlacement& s_parts = b.dataset("S partitions");
  for (int w = 0; w < n; ++w) {
    ThreadPlan& tp = b.thread_plan(w);
    const model::Node& node = b.node_of(w);
    const int bits = radix_partition_bits(d.build_records, private_cache_bytes(node), c.entry_bytes);
    const double table_bytes = std::max(1.0, d.build_records / std::ldexp(1.0, bits)) * 2.0 * c.entry_bytes;
    const double own = std::min(1.0, private_cache_bytes(node) / table_bytes);
    const double hit = std::min(1.0, b.cached_entries(w, c.entry_bytes * 2.0, true) * c.entry_bytes * 2.0 / table_bytes);
    if (w == 0) {
      b.note("radix join: " + std::to_string(bits) + " partition bits; a partition's table " +
             std::to_string(table_bytes / 1024.0).substr(0, 7) + " KiB, private-cache hit ratio " + std::to_string(own).substr(0, 6));
    }
    const double r_tuples = d.build_records / n;
    const double s_tuples = d.records / n;
    OperatorBuilder::scan(tp, r.chunk(w, n), r_tuples * d.tuple_bytes, r_tuples * c.scan_cycles_per_tuple);
    OperatorBuilder::scan(tp, s.chunk(w, n), s_tuples * d.tuple_bytes, s_tuples * c.scan_cycles_per_tuple);
    tp.ops.emplace_back(Barrier{});
    for (const auto& [in, out, tuples] : {std::tuple{&r, &r_parts, r_tuples}, std::tuple{&s, &s_parts, s_tuples}}) {
      Transfer tr;
      tr.read_spread = in->chunk(w, n);
      tr.write_spread = out->spread();
      tr.bytes = tuples * d.tuple_bytes;
      tr.cycles_per_byte = c.partition_cycles_per_tuple / d.tuple_bytes;
      tr.phase = Phase::kPartition;
      tp.ops.emplace_back(std::move(tr));
      b.maybe_os_move(tp);
    }
    tp.ops.emplace_back(Barrier{});
    b.table_loop(tp, w, r_parts.chunk(w, n), r_tuples * d.tuple_bytes, r_tuples * c.scan_cycles_per_tuple, r_parts.chunk(w, n),
                 r_tuples, hit, true, c.partition_join_cycles_per_tuple, -1, 0.0, own);
    b.table_loop(tp, w, s_parts.chunk(w, n), s_tuples * d.tuple_bytes, s_tuples * c.scan_cycles_per_tuple, r_parts.chunk(w, n),
                 s_tuples, hit, false, c.partition_join_cycles_per_tuple, -1, 0.0, own);
  }
}

}  // namespace

OperatorDefinition radix_join_operator() {
  return OperatorDefinition{datasets, plan};
}

}  // namespace numatwin::sim::operators
