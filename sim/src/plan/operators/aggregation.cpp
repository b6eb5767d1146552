// COUNT and MEDIAN (Memarzia et al.'s W2 and W1): GROUP BY key over a shared hash table, as the
// real kernels (validate/src/kernels/aggregation_kernels.cpp, operator_run.cpp) do them.
//
// Datasets: input (partitioned over the workers), hash table (shared, G entries of entry_bytes,
// half full: 2 G entry_bytes), MEDIAN's values (8 bytes per record, in group order).
// What a group occupies in a cache: the table is half full, so a line of entries holds half as
// many groups as it has entries: a group's footprint is f = 2 entry_bytes (32 B for the kernels'
// 16-byte entries). The LLC hit ratio h comes from the key distribution with the node's usable
// LLC (llc_usable_share) over f, the private hit ratio from the core's cache.
//
// COUNT, per worker w of n, its chunk of the input in kBatches batches, each a table loop
// (operator_builder.hpp): records / n scanned tuples (scan_cycles_per_tuple) and as many
// updates of the shared table (hash_cycles_per_tuple); with n > 1 every update is locked
// (atomic_update_ns) and a share (n - 1) / n x h_private finds the line modified by another
// core (shared_line_transfer_ns).
//
// MEDIAN, in the kernel's four steps with a barrier after each:
//   count     COUNT's pass as above (the group sizes);
//   offsets   each worker turns its slice of the table (2 G / n entries) into run offsets: two
//             scans of the slice (the slice totals, then counts to offsets, which writes the
//             slice back), scan_cycles_per_tuple per entry each;
//   scatter   the input once more: per record a lookup of its group's entry (an update: the run's
//             cursor is incremented, locked with n > 1, hash_cycles_per_tuple) and a write of the
//             value at the cursor, in the group's run. While both are hot a group occupies its
//             entry and its run's tail line: f' = f + S bytes (S the line), so h' = hit(usable
//             LLC / f'), for the lookups and the tail writes alike. A tail write that misses
//             reads the line for ownership and writes it back (a random update miss); the tails
//             that hit are written back once: a write stream of records / n x 8 x h' bytes;
//   select    each worker reads its slice's runs (records / n x 8 bytes) and the slice, and
//             selects each group's median: cycles = records / n x select_cycles_per_value. The
//             kernel sorts a run of up to 32 values by insertion and selects in a longer one
//             (nth_element), both about linear in the values at the sizes it meets: its loop
//             takes 8.2 ns a value over groups of 16 and 7.2 ns over groups of 256 on the
//             project's build VM (the cost microbenchmarks sort_16, sort_256), where a sort's
//             log2 k comparisons a value would have doubled the second.
//
// MEDIAN with --allocation per-group (the kernel: validate/allocating_kernels.hpp), two steps:
//   append    one pass over the input as the scatter above (a lookup and update of the group's
//             entry and a write at its block's tail), and per value an update of the block's
//             header line (prefetched d values ahead as the slot is, read for the tail's address,
//             the count written back: a random update of the heap, as a table loop's, LLC hit h';
//             until session 33 it was left out). A group holds its entry, its header line and,
//             for the share b of values past the header's line, its tail line: footprint
//             f' = f + S (1 + b). A tail beyond the block header's line (allocation_costs.hpp: b) is a
//             dependent access (its address needs the header): LLC hit h' as above, the misses one
//             at a time (OperatorBuilder::dependent_accesses), or, when the allocator's entry
//             has its layout figures, h' x min(llc_hit_ns, w) + (1 - h') x w, w the measured
//             dependent write (allocation_costs.hpp: tail_write_cost; its translation included;
//             a write that hits is buffered as one that misses, so it costs no more: until
//             session 32 a hit cost llc_hit_ns, a load's latency, 12-19 ns against w's 0-7 ns, and
//             the prediction rose with the measured usable LLC share). The topology's
//             dependent-miss grid is not read here: it times dependent reads, and a tail is a
//             write, which the layout bench times as one (reading the grid at k = 1 instead moved
//             the quiet table's MEDIAN error from 10.2 / 12.0 % to 33.0 / 26.0 %, 1 / 2 threads,
//             docs/allocators.md); plus the allocator's
//             time for the mallocs and reallocs (sim/plan/allocation_costs.hpp: the growth rule
//             and the expected totals), shared equally by the workers and spread over the batches;
//   select    each worker reads its slice and its groups' blocks (the values dataset holds the
//             blocks' bytes, as allocation_costs.hpp counts them, times the allocator's overhead
//             ratio), selects each median as above, and frees the blocks (the free and
//             remote-free time of allocation_costs.hpp). The kernel reaches a block through its
//             slot and prefetches none ahead, and its selection's mispredicted compares keep the
//             core from running ahead into the next block: when the allocator's entry has the
//             measured block read (allocation_costs.hpp: block_read_cost), each of the G / n
//             groups whose block misses the LLC (a share 1 - min(1, usable LLC / heap bytes))
//             adds it on top of the selection's compute (session 33); without it, the block's
//             first line is a dependent access (LLC hit h' as in the append, the misses one at a
//             time: OperatorBuilder::dependent_accesses) with its page's translation.
// There is no count or offsets step: nothing is laid out in advance.
//
// Pages (model/tlb.hpp, OperatorBuilder::page_walks): every table update, run-tail write and block
// header access adds the translation its buffer's pages cost over 2 MiB pages (random over the
// buffer's bytes, random_lines_in_flight at once; the dependent tails one at a time). The hash
// table and the runs are placed datasets; the per-group blocks are the allocator's heap.
#include <algorithm>
#include <cmath>

#include "numatwin/sim/plan/allocation_costs.hpp"
#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

bool is_median(const WorkloadSpec& spec) { return spec.kind == WorkloadKind::kMedianAggregation; }
bool per_group(const WorkloadSpec& spec) { return is_median(spec) && spec.allocation == Allocation::kPerGroup; }

// The bytes the per-group blocks occupy: their size classes times the allocator's overhead.
double block_bytes(const WorkloadSpec& spec) {
  const double overhead = spec.allocator_costs ? std::max(1.0, spec.allocator_costs->overhead_ratio) : 1.0;
  return per_group_allocation(spec, std::max(1, spec.threads)).bytes_held * overhead;
}

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  std::vector<DatasetRequest> out = {
      {"input", d.records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"hash table", d.keys.groups * spec.costs.entry_bytes * 2.0, DatasetKind::kShared},
  };
  if (is_median(spec)) out.push_back({"values", per_group(spec) ? block_bytes(spec) : d.records * 8.0, DatasetKind::kPrivate});
  return out;
}

// The hit ratios of one pass over the input whose groups occupy `footprint` bytes each.
struct PassHits {
  double llc = 0.0;
  double own = 0.0;     // the core's own cache
  double shared = 0.0;  // lines another worker modified last
};

PassHits pass_hits(const OperatorBuilder& b, int w, double footprint) {
  const DataSpec& d = b.data();
  return PassHits{cache_hit_ratio(d.keys, b.cached_entries(w, footprint, false), d.records),
                  b.private_hit_ratio(w, d.keys, footprint, d.records),
                  b.shared_line_share(w, d.keys, footprint, d.records, b.workers())};
}

// One pass of table updates over worker w's chunk (COUNT's pass, MEDIAN's count and scatter
// lookups), in kBatches batches; `tails` (MEDIAN's scatter): the value writes at each group's
// run tail follow each batch.
void update_pass(OperatorBuilder& b, int w, const PassHits& hits, bool tails, double allocate_s = 0.0) {
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const double batch = d.records / n / kBatches;
  ThreadPlan& tp = b.thread_plan(w);
  const std::vector<model::NodeShare> chunk = b.dataset("input").chunk(w, n);
  for (int i = 0; i < kBatches; ++i) {
    b.table_loop(tp, w, chunk, batch * d.tuple_bytes, batch * c.scan_cycles_per_tuple,
                 b.spread_of("hash table"), batch, hits.llc, true, c.hash_cycles_per_tuple,
                 -1, hits.shared, hits.own, n > 1);
    b.table_page_walks(tp, b.dataset("hash table").size_bytes, batch, model::BufferKind::kPlaced, Phase::kUpdateTable);
    if (tails) {
      const std::vector<model::NodeShare> values = b.spread_of("values");
      b.table_loop(tp, w, {}, 0.0, 0.0, values, batch, hits.llc, true, 0.0, -1, 0.0, hits.own,
                   false);
      b.table_page_walks(tp, b.dataset("values").size_bytes, batch, model::BufferKind::kPlaced, Phase::kUpdateTable);
      OperatorBuilder::write_stream(tp, values, batch * 8.0 * hits.llc);
    }
    if (allocate_s > 0.0) tp.ops.emplace_back(Compute{allocate_s / kBatches, Phase::kUpdateTable});
    b.maybe_os_move(tp);
  }
}

// MEDIAN per group (top of the file).
void plan_per_group(OperatorBuilder& b) {
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const AllocationSeconds alloc = per_group_allocation(b.spec(), n);
  b.note(std::string("allocator ") + b.spec().allocator + (alloc.rests_on_defaults ? " (model defaults)" : "") + ": " +
         std::to_string(static_cast<long long>(alloc.allocations)) + " mallocs and reallocs, " +
         std::to_string(static_cast<long long>(alloc.frees)) + " frees expected");
  const double slice_entries = 2.0 * d.keys.groups / n;
  for (int w = 0; w < n; ++w) {
    ThreadPlan& tp = b.thread_plan(w);
    // While it fills, a group holds its entry, its block's header line and, for the values past
    // the header's line, its tail line.
    const double beyond = share_beyond_header_line(b.spec());
    const PassHits append = pass_hits(b, w, 2.0 * c.entry_bytes + b.line_bytes() * (1.0 + beyond));
    if (w == 0) b.note_hit("group entries, block headers and tails (append)", append.llc);
    update_pass(b, w, append, false, alloc.allocate_s / n);
    const double tails = d.records / n * beyond;
    const std::vector<model::NodeShare> blocks = b.spread_of("values");
    // The header line: prefetched d values ahead as the slot is, read for the tail's address and
    // written (the count) on every append: a random update of the heap per value. Not charged:
    // the transfer when another worker modified the header line last (the slot's update charges
    // it for the slot's line only; it is (T - 1) / T of the private hit share, small beside the
    // misses).
    b.table_loop(tp, w, {}, 0.0, 0.0, blocks, d.records / n, append.llc, true, 0.0, -1, 0.0, append.own, false);
    const DependentCost tail = tail_write_cost(b.spec(), n);
    if (tail.measured) {  // the allocator's measured dependent write, its translation included
      // A tail that hits the LLC is a buffered write as one that misses: it costs no more than
      // the measured miss (llc_hit_ns is a dependent load's latency).
      const double hit_ns = std::min(c.llc_hit_ns, tail.ns);
      const double all_ns = append.llc * hit_ns + (1.0 - append.llc) * tail.ns;
      tp.ops.emplace_back(Compute{tails * all_ns * 1e-9, Phase::kUpdateTable,
                                  all_ns > 0.0 ? append.llc * hit_ns / all_ns : 0.0,
                                  all_ns > 0.0 ? (1.0 - append.llc) * tail.ns / all_ns : 0.0});
    } else {
      b.dependent_accesses(tp, blocks, tails, append.llc, true, Phase::kUpdateTable);
    }
    // Translation: every value's block header (prefetched ahead) and the dependent tails, over
    // the allocator's heap.
    const double heap_bytes = b.dataset("values").size_bytes;
    if (w == 0) {
      b.note_pages("hash table", b.dataset("hash table").size_bytes, c.random_lines_in_flight, model::BufferKind::kPlaced);
      b.note_pages("value blocks (allocator heap)", heap_bytes, 1.0, model::BufferKind::kAllocatorHeap);
    }
    b.table_page_walks(tp, heap_bytes, d.records / n, model::BufferKind::kAllocatorHeap, Phase::kUpdateTable);
    if (!tail.measured) b.page_walks(tp, heap_bytes, tails, 1.0, model::BufferKind::kAllocatorHeap, Phase::kUpdateTable);
    OperatorBuilder::write_stream(tp, blocks, tails * 8.0 * append.llc);
    tp.ops.emplace_back(Barrier{});
    const std::vector<model::NodeShare> slice = b.dataset("hash table").chunk(w, n);
    const double values = d.records / n;
    const double cycles = values * c.select_cycles_per_value;
    OperatorBuilder::scan(tp, slice, slice_entries * c.entry_bytes, 0.0);
    OperatorBuilder::scan(tp, b.spread_of("values"), b.dataset("values").size_bytes / n, cycles, -1, Phase::kReadInput,
                          Phase::kSortMerge, 1.0);
    const double slice_groups = d.keys.groups / n;
    const DependentCost block = block_read_cost(b.spec(), n);
    if (block.measured) {
      // The selection reads each block whole before it reaches the next (allocation_costs.hpp):
      // the measured block read, for the blocks that miss the LLC, on top of the compute. A block
      // is in the LLC by the usable LLC's share of the heap.
      const double in_llc = std::min(1.0, b.usable_llc_bytes(b.node_of(w)) / std::max(1.0, heap_bytes));
      if (w == 0) b.note_hit("value blocks (selection, each read whole before the next)", in_llc);
      tp.ops.emplace_back(Compute{slice_groups * (1.0 - in_llc) * block.ns * 1e-9, Phase::kSortMerge, 0.0, 1.0});
    } else {
      // Without the figure: the kernel reaches each group's block through its slot and prefetches
      // no block ahead: the block's first line is a dependent miss the selection waits for, one
      // at a time, with its page's translation. The scan above still streams every line of the
      // blocks, this first one too: 64 bytes per group are counted twice (1/16 of a 1 KiB block).
      b.dependent_accesses(tp, b.spread_of("values"), slice_groups, append.llc, false, Phase::kSortMerge);
      b.page_walks(tp, heap_bytes, slice_groups, 1.0, model::BufferKind::kAllocatorHeap, Phase::kSortMerge);
    }
    tp.ops.emplace_back(Compute{alloc.free_s / n, Phase::kOther});
  }
}

void plan(OperatorBuilder& b) {
  if (per_group(b.spec())) {
    plan_per_group(b);
    return;
  }
  const bool median = is_median(b.spec());
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const double group_bytes = 2.0 * c.entry_bytes;
  const double slice_entries = 2.0 * d.keys.groups / n;
  for (int w = 0; w < n; ++w) {
    const PassHits count = pass_hits(b, w, group_bytes);
    if (w == 0) {
      b.note_hit("hash table", count.llc);
      b.note_shared("hash table", count.shared);
      b.note_pages("hash table", b.dataset("hash table").size_bytes, c.random_lines_in_flight, model::BufferKind::kPlaced);
    }
    update_pass(b, w, count, false);
    if (!median) continue;
    ThreadPlan& tp = b.thread_plan(w);
    const std::vector<model::NodeShare> slice = b.dataset("hash table").chunk(w, n);
    const double slice_bytes = slice_entries * c.entry_bytes;
    // offsets: slice totals, then counts to offsets (read and write back).
    tp.ops.emplace_back(Barrier{});
    OperatorBuilder::scan(tp, slice, slice_bytes, slice_entries * c.scan_cycles_per_tuple);
    tp.ops.emplace_back(Barrier{});
    OperatorBuilder::scan(tp, slice, slice_bytes, slice_entries * c.scan_cycles_per_tuple);
    OperatorBuilder::write_stream(tp, slice, slice_bytes);
    tp.ops.emplace_back(Barrier{});
    // scatter: lookups and tail writes share the cache, a group holding its entry and its tail.
    const PassHits scatter = pass_hits(b, w, group_bytes + b.line_bytes());
    if (w == 0) b.note_hit("group entries and run tails (scatter)", scatter.llc);
    update_pass(b, w, scatter, true);
    // select: each worker takes its slice's groups, reads their values and selects the median.
    tp.ops.emplace_back(Barrier{});
    const double values = d.records / n;
    const double cycles = values * c.select_cycles_per_value;
    OperatorBuilder::scan(tp, slice, slice_bytes, 0.0);
    OperatorBuilder::scan(tp, b.spread_of("values"), values * 8.0, cycles, -1,
                          Phase::kReadInput, Phase::kSortMerge, 1.0);
  }
}

}  // namespace

OperatorDefinition aggregation_operator() { return OperatorDefinition{datasets, plan}; }

}  // namespace numatwin::sim::operators
