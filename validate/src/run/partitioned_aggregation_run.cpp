// Partitioned aggregation run for real (shuffle_run.hpp describes it; sim/operator_plan.cpp,
// partitioned_aggregation(), is what it mirrors).
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "numatwin/model/routing.hpp"
#include "numatwin/shuffle/runner.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/validate/kernels/data_generator.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "numatwin/validate/run/migration_cores.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "numatwin/validate/kernels/shuffle_kernels.hpp"
#include "numatwin/validate/run/shuffle_run.hpp"
#include "shuffle_run_common.hpp"

namespace numatwin::validate::detail {
namespace {

struct Sizes {
  int threads = 1;
  std::size_t records = 0;
  std::size_t slots = 0;          // per table
  std::size_t stride_entries = 0;  // per table in a tables dataset, whole pages
};

Sizes sizes_of(const sim::WorkloadSpec& spec, std::size_t page) {
  const sim::DataSpec& d = spec.data;
  if (spec.threads < 1) throw std::invalid_argument("--threads must be >= 1");
  if (d.tuple_bytes != 16)
    throw std::invalid_argument("--tuple-bytes " + std::to_string(d.tuple_bytes) +
                                ": the real partitioned aggregation reads 16-byte tuples (8-byte key + 8-byte value)");
  const double pieces = static_cast<double>(spec.threads) * spec.threads;
  if (!(d.records >= pieces) || !std::isfinite(d.records))
    throw std::invalid_argument("--records must be >= threads^2 (" + std::to_string(static_cast<long long>(pieces)) +
                                ") to give every piece a record");
  if (d.records > 4294967295.0) throw std::invalid_argument("--records must be <= 4294967295 (group counts are 32-bit)");
  if (!(d.keys.groups >= 1.0) || d.keys.groups > static_cast<double>(kMaxAggregationKey))
    throw std::invalid_argument("--groups must be between 1 and " + std::to_string(kMaxAggregationKey) + " (32-bit keys)");
  Sizes s;
  s.threads = spec.threads;
  s.records = static_cast<std::size_t>(std::llround(d.records));
  s.slots = table_slots(d.keys.groups / spec.threads);
  s.stride_entries = round_up(s.slots * sizeof(GroupEntry), page) / sizeof(GroupEntry);
  return s;
}

std::uint64_t entry_digest(const GroupEntry& e) {
  return key_hash(e.key_plus_one * 0x9e3779b97f4a7c15ULL ^ key_hash(e.count + 0x632be59bd9b4e019ULL) ^ key_hash(e.sum));
}

}  // namespace

double partitioned_aggregation_memory_bytes(const sim::WorkloadSpec& spec) {
  const Sizes s = sizes_of(spec, page_bytes());
  const auto n = static_cast<double>(s.threads);
  const double table_set = n * static_cast<double>(s.stride_entries) * sizeof(GroupEntry);
  const bool copy = spec.strategy == sim::PartitionStrategy::kMigrationAndCopy;
  const double reference = static_cast<double>(s.records) <= kReferenceRecords ? 64.0 * static_cast<double>(s.records) : 0.0;
  return static_cast<double>(s.records) * sizeof(Tuple) + table_set * (copy ? 1.0 + n : 1.0) + reference;
}

RealRun run_partitioned_aggregation(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                                    const RunOptions& options) {
  sim::check_workload(topology, spec);
  if (options.repetitions < 1) throw std::invalid_argument("repetitions must be >= 1");
  const Sizes sizes = sizes_of(spec, dataset_page_bytes(options.huge_pages));
  const KeyGenerator generator(spec.data.keys, sizes.records, spec.seed);  // checks the key distribution
  check_free_memory(partitioned_aggregation_memory_bytes(spec), options);
  const TeamPlan plan = plan_team(topology, host, spec);
  const int n = sizes.threads;
  const auto un = static_cast<std::size_t>(n);
  const std::vector<std::vector<int>> visit = consumer_visits(plan.model_threads, spec.algorithm, spec.seed, spec.producer_orders);
  const bool tight = spec.sync == sim::SyncMode::kTight;
  const bool migration = spec.strategy != sim::PartitionStrategy::kShuffle;
  const bool copy = spec.strategy == sim::PartitionStrategy::kMigrationAndCopy;

  // Where the simulator puts each worker's input chunk (the node holding most of it): the node a
  // migrating worker moves to for that producer's pieces. Same placer, same order of datasets.
  std::vector<model::NodeIndex> thread_nodes;
  for (const sim::PlacedThread& t : plan.model_threads) thread_nodes.push_back(t.node);
  const model::Routing routing(topology);
  sim::MemoryPlacer placer(topology, routing, thread_nodes, thread_nodes.front());
  const sim::DataPlacement input_placement =
      placer.place("input", spec.data.records * spec.data.tuple_bytes, sim::DatasetKind::kPartitioned, spec.memory);
  std::vector<model::NodeIndex> data_node(un);
  for (std::size_t p = 0; p < un; ++p) {
    const std::vector<model::NodeShare> piece = input_placement.chunk(static_cast<int>(p), n);
    data_node[p] = std::max_element(piece.begin(), piece.end(), [](const auto& a, const auto& b) {
                     return a.fraction < b.fraction;
                   })->node;
  }
  std::unique_ptr<MigrationCores> cores;
  std::vector<bool> copy_nodes(topology.nodes.size(), false);
  if (migration) {
    cores = std::make_unique<MigrationCores>(host, plan.model_threads);
    for (model::NodeIndex node : data_node) {
      if (!topology.nodes[static_cast<std::size_t>(node)].has_cores()) continue;
      if (!cores->can_host(node))
        throw std::invalid_argument("input data on node " + std::to_string(node) + ", which has no usable CPU to migrate to");
      copy_nodes[static_cast<std::size_t>(node)] = copy;
    }
  }

  ThreadTeam team(plan.os_cpus);

  // Input: generated where the policy puts it; each worker's chunk split into n key partitions.
  PlacedDataset input("input", sizes.records, sizeof(Tuple), sim::DatasetKind::kPartitioned, spec.memory, host,
                      options.huge_pages, options.weighted_interleave_by);
  auto* tuples = input.as<Tuple>();
  std::vector<std::vector<std::size_t>> offsets(un);    // offsets[p][c]: start of piece (p -> c), absolute
  std::vector<std::uint64_t> piece_count(un * un, 0);  // [p * n + c]
  std::vector<std::uint64_t> piece_sum(un * un, 0);
  input.initialise(team, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t p = 0; p < un; ++p) {
      const auto [b, e] = PlacedDataset::chunk(sizes.records, static_cast<int>(p), n);
      if (b < begin || e > end) continue;
      generator.fill_tuples(b, std::span<Tuple>(tuples + b, e - b));
      for (std::size_t i = b; i < e; ++i)
        if (tuples[i].key >= kMaxAggregationKey) throw std::invalid_argument("the generator produced a key >= 2^32 - 2");
      std::vector<std::size_t> local = partition_in_place(tuples + b, e - b, n);
      for (std::size_t& o : local) o += b;
      for (std::size_t c = 0; c < un; ++c) {
        piece_count[p * un + c] = local[c + 1] - local[c];
        std::uint64_t sum = 0;
        for (std::size_t i = local[c]; i < local[c + 1]; ++i) sum += tuples[i].value;
        piece_sum[p * un + c] = sum;
      }
      offsets[p] = std::move(local);
    }
  });
  for (std::size_t p = 0; p < un; ++p)
    if (offsets[p].size() != un + 1) throw std::logic_error("input chunk " + std::to_string(p) + " was not generated");

  // Private tables (worker w's at chunk w) under the spec's policy; copies per node.
  PlacedDataset tables("tables", un * sizes.stride_entries, sizeof(GroupEntry), sim::DatasetKind::kPrivate, spec.memory, host,
                       options.huge_pages, options.weighted_interleave_by);
  auto* table_data = tables.as<GroupEntry>();
  tables.initialise(team, [&](int, std::size_t begin, std::size_t end) {
    std::memset(static_cast<void*>(table_data + begin), 0, (end - begin) * sizeof(GroupEntry));
  });
  const std::vector<std::unique_ptr<PlacedDataset>> copies =
      per_node_datasets("table copies", copy_nodes, un * sizes.stride_entries, sizeof(GroupEntry), host, options.huge_pages, team);

  std::vector<std::uint64_t> expected_count(un, 0), expected_sum(un, 0);
  for (std::size_t p = 0; p < un; ++p)
    for (std::size_t c = 0; c < un; ++c) {
      expected_count[c] += piece_count[p * un + c];
      expected_sum[c] += piece_sum[p * un + c];
    }
  const bool with_reference = options.verify && static_cast<double>(sizes.records) <= kReferenceRecords;
  std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> reference;
  if (with_reference) {
    for (std::size_t i = 0; i < sizes.records; ++i) {
      auto& [count, sum] = reference[tuples[i].key];
      ++count;
      sum += tuples[i].value;
    }
  }

  // The steps run through libnumatwin-shuffle (shuffle/runner.hpp), as the shuffle's do: piece
  // (p -> c) is partition c of p's chunk, an unequal piece, so the layout gives its offsets.
  struct alignas(64) Worker {
    std::size_t step = 0;
    model::NodeIndex here = 0;
    GroupEntry* table = nullptr;
    std::size_t used = 0;
    bool overflow = false;
    GroupEntry* final_table = nullptr;
    int cpu_at_start = -1;
    int cpu_at_end = -1;
  };
  std::vector<Worker> workers(un);
  PinErrors pins;
  const std::size_t table_bytes = sizes.slots * sizeof(GroupEntry);
  std::uint64_t digest = 0;
  bool have_digest = false;

  static_assert(shuffle::kUnpinned == kUnpinned, "unpinned threads mean the same in both libraries");
  shuffle::Runner runner(plan.os_cpus);
  const shuffle::Schedule schedule = shuffle::Schedule::from_orders(visit);
  shuffle::PieceLayout pieces;
  pieces.buffers.assign(un, reinterpret_cast<const std::byte*>(tuples));
  for (const std::vector<std::size_t>& o : offsets) {
    std::vector<std::size_t> bytes;
    for (std::size_t t : o) bytes.push_back(t * sizeof(Tuple));
    pieces.offsets.push_back(std::move(bytes));
  }
  const shuffle::Consumer consume = [&](int w, const std::byte* piece, std::size_t bytes) {
    const auto uw = static_cast<std::size_t>(w);
    Worker& me = workers[uw];
    if (me.step == 0) me.cpu_at_start = sched_getcpu();
    if (migration) {
      const model::NodeIndex target = data_node[static_cast<std::size_t>(visit[uw][me.step])];
      if (target != me.here && topology.nodes[static_cast<std::size_t>(target)].has_cores()) {
        if (copy) {
          GroupEntry* there = copies[static_cast<std::size_t>(target)]->as<GroupEntry>() + uw * sizes.stride_entries;
          std::memcpy(static_cast<void*>(there), me.table, table_bytes);
          me.table = there;
        }
        const int cpu = cores->move(w, target);
        if (cpu != kStay) pins.pin(cpu);
        me.here = target;
      }
    }
    aggregate_piece(reinterpret_cast<const Tuple*>(piece), bytes / sizeof(Tuple),
                    AggregationTable{me.table, sizes.slots - 1, &me.used, &me.overflow});
    ++me.step;
  };

  RealRun run;
  auto repetition = [&](std::vector<PhaseTime>& phases) -> double {
    if (cores) cores->reset();
    runner.on_each_thread([&](int w) {  // untimed: every worker starts at home with an empty table
      const auto uw = static_cast<std::size_t>(w);
      Worker& me = workers[uw];
      me = Worker{};
      me.here = thread_nodes[uw];
      me.table = table_data + uw * sizes.stride_entries;
      std::memset(static_cast<void*>(me.table), 0, table_bytes);
    });
    const shuffle::RunTiming timing =
        runner.run(schedule, pieces, tight ? shuffle::Sync::kTight : shuffle::Sync::kLoose, consume);
    runner.on_each_thread([&](int w) {  // untimed: migrating workers go home
      const auto uw = static_cast<std::size_t>(w);
      workers[uw].final_table = workers[uw].table;
      if (migration) pins.pin(plan.os_cpus[uw]);
      workers[uw].cpu_at_end = sched_getcpu();
    });
    pins.rethrow();
    RepetitionClock clock(n, tight ? n : 0);
    clock.step_end_s = timing.step_end_seconds;
    for (std::size_t w = 0; w < un; ++w) clock.end_s[w].seconds = timing.thread_end_seconds[w];
    const double seconds = clock.finish(tight, phases);
    // Digest and invariants of every table; the full reference on small inputs.
    std::uint64_t this_digest = 0;
    std::size_t groups = 0;
    for (std::size_t c = 0; c < un; ++c) {
      const Worker& me = workers[c];
      std::uint64_t count = 0, sum = 0;
      std::size_t used = 0;
      for (std::size_t s = 0; s < sizes.slots; ++s) {
        const GroupEntry& e = me.final_table[s];
        if (e.key_plus_one == 0) continue;
        ++used;
        count += e.count;
        sum += e.sum;
        this_digest += entry_digest(e);
        if (with_reference) {
          const std::uint64_t key = e.key_plus_one - 1ULL;
          const auto found = reference.find(key);
          if (found == reference.end() || found->second.first != e.count || found->second.second != e.sum ||
              partition_of(key, n) != static_cast<int>(c))
            throw std::runtime_error("partitioned aggregation verification failed: worker " + std::to_string(c) + "'s group " +
                                     std::to_string(key) + " (count " + std::to_string(e.count) + ", sum " +
                                     std::to_string(e.sum) + ") differs from the reference");
        }
      }
      groups += used;
      if (options.verify && (me.overflow || used != me.used || count != expected_count[c] || sum != expected_sum[c]))
        throw std::runtime_error("partitioned aggregation verification failed: worker " + std::to_string(c) + " counted " +
                                 std::to_string(count) + " records summing to " + std::to_string(sum) + ", its partition has " +
                                 std::to_string(expected_count[c]) + " summing to " + std::to_string(expected_sum[c]) +
                                 (me.overflow ? " (its table overflowed)" : ""));
    }
    if (with_reference && groups != reference.size())
      throw std::runtime_error("partitioned aggregation verification failed: " + std::to_string(groups) + " groups, the reference has " +
                               std::to_string(reference.size()));
    if (options.verify && have_digest && this_digest != digest)
      throw std::runtime_error("partitioned aggregation verification failed: the groups differ between repetitions");
    digest = this_digest;
    have_digest = true;
    return seconds;
  };
  time_repetitions(options, run, repetition);

  run.checksum = digest;
  run.work = static_cast<double>(sizes.records);
  run.work_unit = "tuples";
  run.verified = options.verify;
  run.verification = !options.verify ? "not verified"
                     : with_reference
                         ? "every group matches the reference (a hash map over the whole input) and sits in its key's partition"
                         : "every worker's COUNT total and SUM total = those of its key partition computed at generation";
  std::vector<const PlacedDataset*> observed{&input, &tables};
  for (const auto& c : copies)
    if (c) observed.push_back(c.get());
  record_observations(plan, team, observed, run);
  for (std::size_t w = 0; w < un; ++w) {  // where the library's threads ran
    run.threads[w].cpu_at_start = workers[w].cpu_at_start;
    run.threads[w].cpu_at_end = workers[w].cpu_at_end;
    run.threads[w].node_at_end = node_of_cpu(workers[w].cpu_at_end);
  }
  run.huge_pages = options.huge_pages;
  return run;
}

}  // namespace numatwin::validate::detail
