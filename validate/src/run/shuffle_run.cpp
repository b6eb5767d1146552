#include "numatwin/validate/run/shuffle_run.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "numatwin/shuffle/runner.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "numatwin/validate/kernels/shuffle_kernels.hpp"
#include "shuffle_run_common.hpp"

namespace numatwin::validate {
namespace detail {

double RepetitionClock::finish(bool tight, std::vector<PhaseTime>& phases) const {
  double end = start_s;
  for (const WorkerEnd& e : end_s) end = std::max(end, e.seconds);
  if (tight) {
    double previous = start_s;
    for (std::size_t k = 0; k < step_end_s.size(); ++k) {
      phases.push_back(PhaseTime{"step " + std::to_string(k), step_end_s[k] - previous});
      previous = step_end_s[k];
    }
  }
  return end - start_s;
}

void PinErrors::pin(int cpu) {
  try {
    ThreadTeam::pin_current(cpu);
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!first_) first_ = std::current_exception();
  }
}

void PinErrors::rethrow() {
  std::exception_ptr error;
  {
    std::lock_guard lock(mutex_);
    std::swap(error, first_);
  }
  if (error) std::rethrow_exception(error);
}

std::size_t dataset_page_bytes(bool huge_pages) { return huge_pages ? kHugePageBytes : page_bytes(); }

std::vector<std::unique_ptr<PlacedDataset>> per_node_datasets(const std::string& name, const std::vector<bool>& nodes,
                                                               std::size_t elements, std::size_t element_bytes,
                                                               const HostMap& host, bool huge_pages, ThreadTeam& team) {
  std::vector<std::unique_ptr<PlacedDataset>> out(nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (!nodes[n]) continue;
    sim::MemoryPolicy policy;
    policy.kind = sim::MemoryPolicyKind::kPreferred;
    policy.nodes = {static_cast<model::NodeIndex>(n)};
    out[n] = std::make_unique<PlacedDataset>(name + " n" + std::to_string(n), elements, element_bytes,
                                             sim::DatasetKind::kShared, policy, host, huge_pages, WeightedInterleaveBy::kPages);
    std::byte* data = out[n]->data();
    out[n]->initialise(team, [&](int, std::size_t begin, std::size_t end) {
      std::memset(data + begin * element_bytes, 0, (std::min(end, elements) - begin) * element_bytes);
    });
  }
  return out;
}

}  // namespace detail

namespace {

using detail::round_up;

bool migrates(sim::WorkloadKind kind) {
  return kind == sim::WorkloadKind::kMigration || kind == sim::WorkloadKind::kMigrationAndCopy;
}

// Sizes of one shuffle run, checked before any work.
struct ShuffleLayout {
  int threads = 1;
  std::size_t piece_elements = 0;    // per piece
  std::size_t stride_elements = 0;   // per producer buffer, rounded up to whole pages
  std::size_t state_words = 0;       // migration state, 64-bit words
  std::size_t state_slot_words = 0;  // per thread in a state dataset, whole cache lines
};

ShuffleLayout shuffle_layout(const sim::WorkloadSpec& spec, std::size_t page) {
  ShuffleLayout l;
  if (spec.threads < 1) throw std::invalid_argument("--threads must be >= 1");
  if (spec.element_bytes != 8)
    throw std::invalid_argument("--element-bytes " + std::to_string(spec.element_bytes) +
                                ": the real shuffle kernels read 64-bit integers (8 bytes)");
  if (!(spec.total_bytes > 0.0) || !std::isfinite(spec.total_bytes)) throw std::invalid_argument("--bytes must be > 0");
  if (!(spec.state_bytes >= 0.0) || !std::isfinite(spec.state_bytes) || spec.state_bytes > 1e9)
    throw std::invalid_argument("--state-bytes must be between 0 and 1e9");
  l.threads = spec.threads;
  const double pieces = static_cast<double>(spec.threads) * spec.threads;
  const double elements = std::floor(spec.total_bytes / (pieces * 8.0));
  if (elements < 1.0)
    throw std::invalid_argument("--bytes " + std::to_string(spec.total_bytes) + " gives less than one 8-byte element per piece for " +
                                std::to_string(spec.threads) + " threads (" + std::to_string(spec.threads) + "^2 pieces)");
  l.piece_elements = static_cast<std::size_t>(elements);
  l.stride_elements = round_up(l.piece_elements * static_cast<std::size_t>(spec.threads) * 8, page) / 8;
  if (migrates(spec.kind)) {
    l.state_words = static_cast<std::size_t>(std::ceil(spec.state_bytes / 8.0));
    l.state_slot_words = round_up(l.state_words * 8, 64) / 8;
  }
  return l;
}

RealRun run_shuffle(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                    const RunOptions& options) {
  sim::check_workload(topology, spec);
  if (options.repetitions < 1) throw std::invalid_argument("repetitions must be >= 1");
  const ShuffleLayout layout = shuffle_layout(spec, detail::dataset_page_bytes(options.huge_pages));
  check_free_memory(shuffle_memory_bytes(spec), options);
  const TeamPlan plan = plan_team(topology, host, spec);
  const int n = layout.threads;
  const auto un = static_cast<std::size_t>(n);
  const std::vector<std::vector<int>> visit = consumer_visits(plan.model_threads, spec.algorithm, spec.seed, spec.producer_orders);
  const bool migration = migrates(spec.kind);
  const bool copy = spec.kind == sim::WorkloadKind::kMigrationAndCopy;
  const bool tight = spec.sync == sim::SyncMode::kTight;
  std::vector<model::NodeIndex> node_of(un);
  for (std::size_t t = 0; t < un; ++t) node_of[t] = plan.model_threads[t].node;

  ThreadTeam team(plan.os_cpus);

  // Producer buffers: producer p writes its own buffer (first touch: on p's node).
  sim::MemoryPolicy first_touch;  // first-touch by the workers
  PlacedDataset buffers("buffers", un * layout.stride_elements, 8, sim::DatasetKind::kPartitioned, first_touch, host,
                        options.huge_pages, WeightedInterleaveBy::kPages);
  std::vector<std::uint64_t> expected(un * un, 0);  // expected[p * n + c]: sum of piece c of producer p
  auto* data = buffers.as<std::uint64_t>();
  buffers.initialise(team, [&](int, std::size_t begin, std::size_t end) {
    if (begin % layout.stride_elements != 0 || end % layout.stride_elements != 0)
      throw std::logic_error("shuffle buffers initialised in ranges that split a producer");
    for (std::size_t p = begin / layout.stride_elements; p < end / layout.stride_elements; ++p) {
      std::uint64_t* buffer = data + p * layout.stride_elements;
      for (std::size_t c = 0; c < un; ++c) {
        std::uint64_t* piece = buffer + c * layout.piece_elements;
        const std::uint64_t first = (p * un + c) * layout.piece_elements;
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < layout.piece_elements; ++i) {
          piece[i] = shuffle_element(spec.seed, first + i);
          sum += piece[i];
        }
        expected[p * un + c] = sum;
      }
      std::fill(buffer + un * layout.piece_elements, buffer + layout.stride_elements, std::uint64_t{0});
    }
  });

  // Migration state: thread t's slot in the dataset of its home node; migration & copy also
  // has one on every node it may move to (the nodes of the producers).
  std::vector<bool> state_nodes(topology.nodes.size(), false);
  if (layout.state_words > 0)
    for (model::NodeIndex node : node_of) state_nodes[static_cast<std::size_t>(node)] = true;
  const std::vector<std::unique_ptr<PlacedDataset>> states = detail::per_node_datasets(
      "state", state_nodes, un * layout.state_slot_words, 8, host, options.huge_pages, team);
  auto state_slot = [&](model::NodeIndex node, int thread) {
    return states[static_cast<std::size_t>(node)]->as<std::uint64_t>() + static_cast<std::size_t>(thread) * layout.state_slot_words;
  };

  // The timed part runs through libnumatwin-shuffle (shuffle/): its threads, pinned as the
  // team's, execute the visiting orders as a schedule (steps[k][c] = visit[c][k]); the consumer
  // sums its piece and, for the migration kinds, moves first. What a consumer carries between
  // its steps is in its own cache line.
  struct alignas(64) Consumer {
    std::size_t step = 0;
    std::uint64_t* state = nullptr;
    std::uint64_t sum = 0;
    int cpu_at_start = -1;
    int cpu_at_end = -1;
    std::vector<int> read_on;  // migration: the CPU each step's piece was read on
  };
  std::vector<Consumer> consumers(un);
  struct alignas(64) Result {
    std::uint64_t checksum = 0;
    bool state_consistent = true;
  };
  std::vector<Result> results(un);
  detail::PinErrors pins;
  std::vector<std::uint64_t> expected_consumer(un, 0);
  std::uint64_t expected_total = 0;
  for (std::size_t p = 0; p < un; ++p)
    for (std::size_t c = 0; c < un; ++c) {
      expected_consumer[c] += expected[p * un + c];
      expected_total += expected[p * un + c];
    }

  static_assert(shuffle::kUnpinned == kUnpinned, "unpinned threads mean the same in both libraries");
  shuffle::Runner runner(plan.os_cpus);
  const shuffle::Schedule schedule = shuffle::Schedule::from_orders(visit);
  shuffle::PieceLayout pieces;
  for (std::size_t p = 0; p < un; ++p) pieces.buffers.push_back(reinterpret_cast<const std::byte*>(data + p * layout.stride_elements));
  pieces.piece_bytes = layout.piece_elements * 8;
  pieces.stride = pieces.piece_bytes;
  // Migration: the library moves the consumer (Runner::run_migration): when the producer's node
  // is not the one it is on, to the least busy core of that node (the first hardware thread of
  // each core, as sim/plan/plan.hpp binds), copying the state there first for migration & copy.
  shuffle::Migration moves;
  if (migration) {
    moves.copy = copy;
    moves.state_bytes = layout.state_words * 8;
    moves.state_stride = layout.state_slot_words * 8;
    for (std::size_t p = 0; p < un; ++p) {
      moves.nodes.push_back(static_cast<int>(node_of[p]));
      if (layout.state_words > 0) moves.states.push_back(reinterpret_cast<std::byte*>(state_slot(node_of[p], 0)));
    }
    for (std::size_t m = 0; m < host.node_cpus.size(); ++m) {
      const auto usable = static_cast<std::size_t>(std::max(0, std::min(host.cores[m], static_cast<int>(host.node_cpus[m].size()))));
      moves.node_cpus.emplace_back(host.node_cpus[m].begin(), host.node_cpus[m].begin() + static_cast<std::ptrdiff_t>(usable));
    }
  }
  // The model node of every OS CPU a migrating consumer may be on (-1: none), to check where it read.
  const bool pinned = std::find(plan.os_cpus.begin(), plan.os_cpus.end(), kUnpinned) == plan.os_cpus.end();
  std::vector<model::NodeIndex> model_node_of_cpu;
  for (std::size_t m = 0; m < host.node_cpus.size(); ++m)
    for (int cpu : host.node_cpus[m]) {
      if (cpu < 0) continue;
      if (static_cast<std::size_t>(cpu) >= model_node_of_cpu.size()) model_node_of_cpu.resize(static_cast<std::size_t>(cpu) + 1, -1);
      model_node_of_cpu[static_cast<std::size_t>(cpu)] = static_cast<model::NodeIndex>(m);
    }
  const shuffle::Consumer consume = [&](int t, const std::byte* piece, std::size_t bytes) {
    Consumer& me = consumers[static_cast<std::size_t>(t)];
    if (me.step == 0) me.cpu_at_start = sched_getcpu();
    if (migration) {
      me.state = reinterpret_cast<std::uint64_t*>(runner.state(t));  // where it is now (null: no state)
      me.read_on[me.step] = sched_getcpu();
    }
    const std::uint64_t piece_sum = sum_elements(reinterpret_cast<const std::uint64_t*>(piece), bytes / 8);
    if (me.state != nullptr) {
      for (std::size_t i = 0; i < layout.state_words; ++i) me.state[i] += piece_sum;
    } else {
      me.sum += piece_sum;
    }
    ++me.step;
  };

  RealRun run;
  auto repetition = [&](std::vector<PhaseTime>& phases) -> double {
    runner.on_each_thread([&](int t) {  // untimed: every consumer starts at home with a zero state
      Consumer& me = consumers[static_cast<std::size_t>(t)];
      me = Consumer{};
      if (migration) me.read_on.assign(un, -1);
      if (layout.state_words > 0) {
        me.state = state_slot(node_of[static_cast<std::size_t>(t)], t);
        std::fill(me.state, me.state + layout.state_words, std::uint64_t{0});
      }
    });
    const shuffle::Sync sync = tight ? shuffle::Sync::kTight : shuffle::Sync::kLoose;
    const shuffle::RunTiming timing =
        migration ? runner.run_migration(schedule, pieces, sync, moves, consume) : runner.run(schedule, pieces, sync, consume);
    runner.on_each_thread([&](int t) {  // untimed: results, and migrating consumers go home
      const auto ut = static_cast<std::size_t>(t);
      const Consumer& me = consumers[ut];
      Result& r = results[ut];
      r.checksum = me.state != nullptr ? me.state[0] : me.sum;
      r.state_consistent = true;
      if (me.state != nullptr)
        for (std::size_t i = 1; i < layout.state_words; ++i) r.state_consistent = r.state_consistent && me.state[i] == me.state[0];
      if (migration) pins.pin(plan.os_cpus[ut]);
      consumers[ut].cpu_at_end = sched_getcpu();
    });
    pins.rethrow();
    detail::RepetitionClock clock(n, tight ? n : 0);
    clock.step_end_s = timing.step_end_seconds;
    for (std::size_t t = 0; t < un; ++t) clock.end_s[t].seconds = timing.thread_end_seconds[t];
    const double seconds = clock.finish(tight, phases);
    // Verification, every repetition (n^2 additions).
    if (options.verify) {
      std::uint64_t total = 0;
      for (std::size_t c = 0; c < un; ++c) {
        total += results[c].checksum;
        if (results[c].checksum != expected_consumer[c] || !results[c].state_consistent)
          throw std::runtime_error("shuffle verification failed: consumer " + std::to_string(c) + " summed " +
                                   std::to_string(results[c].checksum) + ", its pieces sum to " + std::to_string(expected_consumer[c]) +
                                   (results[c].state_consistent ? "" : " (its migrated state is inconsistent)"));
      }
      if (total != expected_total)
        throw std::runtime_error("shuffle verification failed: the consumers' checksums add up to " + std::to_string(total) +
                                 ", the generated elements to " + std::to_string(expected_total));
      // Migration: every piece was read on its producer's node (the CPU the consumer was on).
      if (migration && pinned) {
        for (std::size_t c = 0; c < un; ++c)
          for (std::size_t k = 0; k < un; ++k) {
            const auto p = static_cast<std::size_t>(visit[c][k]);
            const int cpu = consumers[c].read_on[k];
            const auto at = cpu >= 0 && static_cast<std::size_t>(cpu) < model_node_of_cpu.size() ? model_node_of_cpu[static_cast<std::size_t>(cpu)] : -1;
            if (at != node_of[p])
              throw std::runtime_error("migration verification failed: consumer " + std::to_string(c) + " read producer " +
                                       std::to_string(p) + "'s piece (step " + std::to_string(k) + ") on CPU " + std::to_string(cpu) +
                                       ", node " + std::to_string(at) + ", not on the producer's node " + std::to_string(node_of[p]));
          }
      }
    }
    return seconds;
  };
  time_repetitions(options, run, repetition);

  for (const Result& r : results) run.checksum += r.checksum;
  run.work = static_cast<double>(un * un * layout.piece_elements * 8);
  run.work_unit = "bytes";
  run.verified = options.verify;
  run.verification = options.verify
                         ? "every consumer's checksum = the sum of its pieces computed at generation, and their total = the sum "
                           "of all generated elements" +
                               std::string(layout.state_words > 0 ? "; every word of the migrated state agrees" : "") +
                               std::string(migration && pinned ? "; every piece was read on its producer's node" : "")
                         : "not verified";
  std::vector<const PlacedDataset*> observed{&buffers};
  for (const auto& s : states)
    if (s) observed.push_back(s.get());
  record_observations(plan, team, observed, run);
  for (std::size_t t = 0; t < un; ++t) {  // where the shuffle's own threads ran
    run.threads[t].cpu_at_start = consumers[t].cpu_at_start;
    run.threads[t].cpu_at_end = consumers[t].cpu_at_end;
    run.threads[t].node_at_end = node_of_cpu(consumers[t].cpu_at_end);
  }
  run.huge_pages = options.huge_pages;
  return run;
}

}  // namespace

std::vector<std::vector<int>> consumer_visits(const std::vector<sim::PlacedThread>& threads, sim::ShuffleAlgorithm algorithm,
                                              std::uint64_t seed, const std::vector<std::vector<int>>& orders) {
  const sim::ShuffleOrder order = sim::shuffle_order(threads, algorithm, seed, orders);
  std::vector<std::vector<int>> visit(threads.size());
  for (std::size_t o = 0; o < order.outer.size(); ++o) visit[static_cast<std::size_t>(order.outer[o])] = order.producers[o];
  return visit;
}

double shuffle_memory_bytes(const sim::WorkloadSpec& spec) {
  if (spec.kind == sim::WorkloadKind::kPartitionedAggregation) return detail::partitioned_aggregation_memory_bytes(spec);
  if (!sim::is_shuffle_family(spec.kind))
    throw std::invalid_argument("workload " + sim::workload_kind_name(spec.kind) +
                                " is not a shuffle or partitioned aggregation (shuffle_memory_bytes)");
  const ShuffleLayout layout = shuffle_layout(spec, page_bytes());
  const auto n = static_cast<double>(layout.threads);
  return n * static_cast<double>(layout.stride_elements) * 8.0 + n * n * static_cast<double>(layout.state_slot_words) * 8.0 +
         n * n * 8.0;
}

RealRun run_shuffle_workload(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                             const RunOptions& options) {
  switch (spec.kind) {
    case sim::WorkloadKind::kShuffle:
    case sim::WorkloadKind::kMigration:
    case sim::WorkloadKind::kMigrationAndCopy:
      return run_shuffle(topology, host, spec, options);
    case sim::WorkloadKind::kPartitionedAggregation:
      return detail::run_partitioned_aggregation(topology, host, spec, options);
    default:
      throw std::invalid_argument("workload " + sim::workload_kind_name(spec.kind) +
                                  " is not a shuffle or partitioned aggregation (run_shuffle_workload)");
  }
}

}  // namespace numatwin::validate
