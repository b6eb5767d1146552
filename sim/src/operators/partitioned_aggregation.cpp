// Partitioned aggregation (Li et al., section 4): GROUP BY over key partitions. The input is cut
// into n x n pieces (piece p of worker w holds w's keys from producer p's chunk); worker w owns a
// private table of G / n groups (2 G / n entries of entry_bytes: half full) and aggregates every
// producer's piece for its keys, in the shuffle's order (shuffle_plan.hpp: naive or ring, tight
// with a barrier after each step or loose).
//
// Datasets: input (partitioned, like the shuffle's buffers), tables (private: one per worker).
// Strategies, per step k (a producer's piece of |input| / n^2 records):
//   shuffle            a table loop reading the piece where it lies (remote for most steps) and
//                      updating the worker's own table at home: group_cycles_per_tuple per record,
//                      LLC hit ratio from the key distribution over G / n groups with the LLC
//                      split between the node's workers;
//   migration          the worker moves to the piece's node (a Bind costing
//                      migration_overhead_seconds) and updates its table where it stays (home):
//                      the table accesses become remote instead of the input's; after a move the
//                      table is cold in the new node's cache: its lines come in once per step
//                      (miss share min(1, table lines / piece records) when the table fits the
//                      cache share, else 1 - h);
//   migration & copy   as migration, but the table is copied to the destination first (a copy of
//                      its bytes from the current node to the piece's node), so its accesses stay
//                      local.
#include <algorithm>
#include <cmath>

#include "numatwin/sim/shuffle_plan.hpp"
#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  return {
      {"input", d.records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"tables", d.keys.groups * spec.costs.entry_bytes * 2.0, DatasetKind::kPrivate},
  };
}

void plan(OperatorBuilder& b) {
  const WorkloadSpec& spec = b.spec();
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const model::Topology& t = b.topology();
  const int n = b.workers();
  const DataPlacement& input = b.dataset("input");
  const DataPlacement& tables = b.dataset("tables");
  const ShuffleOrder order = shuffle_order(b.threads(), spec.algorithm, spec.seed);
  const double piece_records = d.records / (static_cast<double>(n) * n);
  const double table_bytes = d.keys.groups / n * c.entry_bytes * 2.0;
  const double table_lines = std::ceil(table_bytes / b.line_bytes());
  KeySpec keys = d.keys;
  keys.groups = std::max(1.0, d.keys.groups / n);
  b.set_steps(n);
  for (int o = 0; o < n; ++o) {
    const int w = order.outer[o];
    ThreadPlan& tp = b.thread_plan(w);
    const double hit = cache_hit_ratio(keys, b.cached_entries(w, c.entry_bytes * 2.0, true), d.records / n);
    const double own = b.private_hit_ratio(w, keys, c.entry_bytes * 2.0, d.records / n);
    if (o == 0) b.note_hit("partition table (in place)", hit);
    const std::vector<model::NodeShare> home_table = tables.chunk(w, n);
    model::NodeIndex here = b.threads()[w].node;
    for (int k = 0; const int producer : order.producers[o]) {
      const std::vector<model::NodeShare> piece = input.chunk(producer, n);
      const model::NodeIndex data_node = std::max_element(piece.begin(), piece.end(), [](const auto& x, const auto& y) {
                                           return x.fraction < y.fraction;
                                         })->node;
      switch (spec.strategy) {
        case PartitionStrategy::kShuffle:
          b.table_loop(tp, w, piece, piece_records * d.tuple_bytes, piece_records * c.scan_cycles_per_tuple, home_table,
                       piece_records, hit, true, c.group_cycles_per_tuple, k, 0.0, own);
          break;
        case PartitionStrategy::kMigration:
        case PartitionStrategy::kMigrationAndCopy: {
          const bool copy = spec.strategy == PartitionStrategy::kMigrationAndCopy;
          if (data_node != here && t.nodes[data_node].has_cores()) {
            if (copy) {
              Transfer tr;
              tr.read_node = here;
              tr.write_node = data_node;
              tr.bytes = table_bytes;
              tr.step = k;
              tp.ops.emplace_back(std::move(tr));
            }
            tp.ops.emplace_back(Bind{data_node, spec.migration_overhead_seconds});
            here = data_node;
          }
          // After a move the table is cold in this node's cache: its lines come in once per step
          // (or every access misses if the table is larger than the cache share).
          const double cold = hit >= 1.0 ? std::min(1.0, table_lines / piece_records) : 1.0 - hit;
          const std::vector<model::NodeShare> table_now =
              copy ? std::vector<model::NodeShare>{model::NodeShare{here, 1.0}} : home_table;
          b.table_loop(tp, w, piece, piece_records * d.tuple_bytes, piece_records * c.scan_cycles_per_tuple, table_now,
                       piece_records, 1.0 - cold, true, c.group_cycles_per_tuple, k, 0.0, std::min(own, 1.0 - cold));
          break;
        }
      }
      if (spec.sync == SyncMode::kTight) tp.ops.emplace_back(Barrier{});
      b.maybe_os_move(tp);
      ++k;
    }
  }
}

}  // namespace

OperatorDefinition partitioned_aggregation_operator() {
  return OperatorDefinition{datasets, plan, true};
}

}  // namespace numatwin::sim::operators
