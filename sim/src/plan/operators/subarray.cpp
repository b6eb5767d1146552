// An array database's `subarray` range filter (Dominico et al., ../docs/algorithms.md §3): a dense
// array of N = records cells of E = element_bytes bytes (doubles: 8), cut into C chunks of N / C
// cells. The chunks go round robin to G = ceil(n / k) chunk groups of k = threads_per_chunk
// consecutive threads (the last group may be smaller: k_g threads); group g filters its C_g
// chunks (C_g = ceil or floor of C / G), and all k_g threads of the group filter every one of
// them together, each a 1/k_g slice of the chunk's cells.
//
// Where the chunks are (the sharing that makes placement matter): the group loaded its chunks
// before the query, each member a 1/k_g share of them (first touch puts a member's share on its
// node; the other policies place the array as they place any partitioned input). A member then
// reads a 1/k_g slice of every chunk of its group, so (k_g - 1) / k_g of what it reads is in
// chunks its partners loaded: local when the group shares a node, remote when it is split.
// Dataset "array": N x E bytes, worker w first-touching C_g / (C k_g) of it; dataset "result":
// the selected cells, s x N x E bytes (s = selectivity), with the same shares.
//
// Per worker w of group g, in kBatches batches:
//   filter   a streaming read of N_w x E bytes (N_w = N C_g / (C k_g) cells), spread over its
//            group's array shares equally (1/k_g each), with filter_cycles_per_cell per cell (the
//            range test, the store into the claim block; measured by the cost microbenchmarks'
//            `filter` loop: 1.5 ns a cell on fresh cells in cache on this project's build VM,
//            2.6 times the histogram's scan cost it was charged before 2026-11-26),
//            keeping filter_stream_share of the core's miss buffers in flight (the same VM: 1.51
//            ns a cell in cache, 1.60 from memory);
//   output   a streaming write of s N_w E bytes into the group's result shares;
//   claim    the selected cells are appended in blocks of kClaimCells cells, each block claimed
//            with one locked add on the chunk's shared result cursor (atomic_update_ns). The
//            cursor line was last modified by another member with probability (k_g - 1) / k_g,
//            by each partner equally often: a transfer costs shared_line_transfer_ns from a
//            partner on the same node, and shared_line_transfer_ns + (L(a, b) - L(a, a)) from a
//            partner on node b (L: the idle access latency, routing.hpp), the line crossing
//            the links as a remote access does. The claims are core work (a Compute).
// Every cost here is an assumption of this model, not a measurement of SAVIME or SciDB: the
// cursor per chunk and the 64-cell claim block are choices of the kernel this describes.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

constexpr double kClaimCells = 64.0;

// The chunk groups: first thread and size of each, and the chunks each group filters.
struct ChunkGroup {
  int first = 0;
  int size = 0;
  double chunks = 0.0;
};

std::vector<ChunkGroup> chunk_groups(const WorkloadSpec& spec) {
  const int n = spec.threads;
  const int k = spec.data.threads_per_chunk;
  const int groups = (n + k - 1) / k;
  const int chunks = spec.data.chunks;
  std::vector<ChunkGroup> out;
  for (int g = 0; g < groups; ++g) {
    ChunkGroup group;
    group.first = g * k;
    group.size = std::min(k, n - g * k);
    group.chunks = static_cast<double>(chunks / groups + (g < chunks % groups ? 1 : 0));
    out.push_back(group);
  }
  return out;
}

void check(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  if (d.threads_per_chunk < 1) throw std::invalid_argument("--threads-per-chunk must be >= 1");
  if (d.chunks < 1) throw std::invalid_argument("--chunks must be >= 1");
  const int groups = (spec.threads + d.threads_per_chunk - 1) / d.threads_per_chunk;
  if (d.chunks < groups) {
    throw std::invalid_argument("--chunks " + std::to_string(d.chunks) + " leaves chunk groups idle: " +
                                std::to_string(spec.threads) + " threads in groups of " + std::to_string(d.threads_per_chunk) +
                                " need at least " + std::to_string(groups) + " chunks");
  }
  if (!(d.selectivity >= 0.0 && d.selectivity <= 1.0)) throw std::invalid_argument("--selectivity must be in [0, 1]");
  if (spec.element_bytes < 1) throw std::invalid_argument("--element-bytes must be >= 1");
  if (d.records < static_cast<double>(d.chunks)) {
    throw std::invalid_argument("--records (array cells) must be at least --chunks " + std::to_string(d.chunks));
  }
}

std::vector<double> worker_shares(const WorkloadSpec& spec) {
  std::vector<double> shares(static_cast<std::size_t>(spec.threads), 0.0);
  for (const ChunkGroup& g : chunk_groups(spec)) {
    for (int m = 0; m < g.size; ++m) shares[g.first + m] = g.chunks / spec.data.chunks / g.size;
  }
  return shares;
}

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  check(spec);
  const DataSpec& d = spec.data;
  const double array_bytes = d.records * spec.element_bytes;
  const std::vector<double> shares = worker_shares(spec);
  return {
      {"array", array_bytes, DatasetKind::kPartitioned, shares},
      {"result", array_bytes * d.selectivity, DatasetKind::kPartitioned, shares},
  };
}

// The spread of what a member of `group` reads from `data`: its group's shares, equally.
std::vector<model::NodeShare> group_spread(const DataPlacement& data, const std::vector<double>& shares, const ChunkGroup& group) {
  double begin = 0.0;
  for (int w = 0; w < group.first; ++w) begin += shares[w] * data.size_bytes;
  std::vector<double> per_node;
  for (int m = 0; m < group.size; ++m) {
    const double end = begin + shares[group.first + m] * data.size_bytes;
    for (const model::NodeShare& s : data.spread(begin, end)) {
      if (static_cast<std::size_t>(s.node) >= per_node.size()) per_node.resize(s.node + 1, 0.0);
      per_node[s.node] += s.fraction / group.size;
    }
    begin = end;
  }
  std::vector<model::NodeShare> out;
  for (std::size_t n = 0; n < per_node.size(); ++n) {
    if (per_node[n] > 0.0) out.push_back(model::NodeShare{static_cast<model::NodeIndex>(n), per_node[n]});
  }
  return out;
}

void plan(OperatorBuilder& b) {
  const WorkloadSpec& spec = b.spec();
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const DataPlacement& array = b.dataset("array");
  const DataPlacement& result = b.dataset("result");
  const std::vector<double> shares = worker_shares(spec);
  const double cell_bytes = spec.element_bytes;
  for (const ChunkGroup& g : chunk_groups(spec)) {
    const std::vector<model::NodeShare> read_spread = group_spread(array, shares, g);
    const std::vector<model::NodeShare> write_spread = group_spread(result, shares, g);
    for (int m = 0; m < g.size; ++m) {
      const int w = g.first + m;
      ThreadPlan& tp = b.thread_plan(w);
      const double cells = d.records * g.chunks / d.chunks / g.size;
      // Expected cost of one claim's cursor transfer: each partner last modified the line with
      // probability 1 / k_g.
      double transfer_ns = 0.0;
      const model::NodeIndex here = b.threads()[w].node;
      for (int p = 0; p < g.size; ++p) {
        if (p == m) continue;
        const model::NodeIndex there = b.threads()[g.first + p].node;
        const double extra = there == here ? 0.0 : b.routing().access_latency_ns(here, there) - b.routing().access_latency_ns(here, here);
        transfer_ns += (c.shared_line_transfer_ns + std::max(0.0, extra)) / g.size;
      }
      const double claims = cells * d.selectivity / kClaimCells;
      const double claim_s = claims * (c.atomic_update_ns + transfer_ns) * 1e-9;
      if (w == 0) {
        b.note("subarray: " + std::to_string(static_cast<int>(chunk_groups(spec).size())) + " chunk groups of up to " +
               std::to_string(d.threads_per_chunk) + " threads, " + std::to_string(d.chunks) + " chunks of " +
               std::to_string(static_cast<long long>(d.records / d.chunks * cell_bytes)) + " bytes");
      }
      for (int batch = 0; batch < kBatches; ++batch) {
        const double batch_cells = cells / kBatches;
        OperatorBuilder::scan(tp, read_spread, batch_cells * cell_bytes, batch_cells * c.filter_cycles_per_cell, -1, Phase::kReadInput,
                              Phase::kOther, 0.0, b.stream_lines_in_flight(w, c.filter_stream_share));
        OperatorBuilder::write_stream(tp, write_spread, batch_cells * cell_bytes * d.selectivity);
        if (claim_s > 0.0) tp.ops.emplace_back(Compute{claim_s / kBatches, Phase::kWriteOutput});
        b.maybe_os_move(tp);
      }
    }
  }
}

}  // namespace

std::vector<ThreadGroup> subarray_chunk_groups(const WorkloadSpec& spec) {
  check(spec);
  std::vector<ThreadGroup> out;
  for (const ChunkGroup& g : chunk_groups(spec)) {
    ThreadGroup group;
    for (int m = 0; m < g.size; ++m) group.threads.push_back(g.first + m);
    group.signature = g.chunks;
    out.push_back(std::move(group));
  }
  return out;
}

OperatorDefinition subarray_operator() { return OperatorDefinition{datasets, plan}; }

}  // namespace numatwin::sim::operators
