#include "sort_merge_join_run.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/validate/kernels/operator_data.hpp"
#include "numatwin/validate/run/placed_dataset.hpp"
#include "numatwin/validate/kernels/sort_merge_join_kernel.hpp"

namespace numatwin::validate {
namespace {

using Range = std::pair<std::size_t, std::size_t>;

bool by_key(const Tuple& a, const Tuple& b) { return a.key < b.key; }

// The reference, from freshly generated data: R's value per key (keys are [0, |R|)), then S
// streamed from its generator in blocks.
JoinTotals reference(const sim::WorkloadSpec& spec, std::uint64_t nr, std::uint64_t ns,
                     std::vector<std::uint64_t>& value_of) {
  std::vector<Tuple> r(nr);
  BuildData(spec).fill(0, r);
  value_of.assign(nr, 0);
  for (const Tuple& t : r) {
    if (t.key >= nr)
      throw std::runtime_error("generated dimension key " + std::to_string(t.key) +
                               " outside [0, |R|)");
    value_of[t.key] = t.value;
  }
  const ProbeData probe(spec);
  std::vector<Tuple> block(1 << 16);
  JoinTotals want;
  for (std::uint64_t first = 0; first < ns; first += block.size()) {
    const std::size_t count = std::min<std::uint64_t>(block.size(), ns - first);
    probe.fill(first, {block.data(), count});
    for (std::size_t i = 0; i < count; ++i) {
      if (block[i].key >= nr) continue;
      ++want.matches;
      want.checksum += value_of[block[i].key] + block[i].value;
    }
  }
  return want;
}

void check(const JoinTotals& got, const JoinTotals& want) {
  if (got.matches != want.matches || got.checksum != want.checksum)
    throw std::runtime_error(
        "the sort-merge join differs from the reference: " + std::to_string(got.matches) +
        " matches (" + std::to_string(want.matches) + " expected), checksum " +
        std::to_string(got.checksum) + " (" + std::to_string(want.checksum) + ")");
}

// Every repetition must give the same result.
void same_result(RealRun& run, std::uint64_t checksum, bool& first) {
  if (first) {
    run.checksum = checksum;
    first = false;
  } else if (checksum != run.checksum) {
    throw std::runtime_error("the sort-merge join's result changed between repetitions (checksum " +
                             std::to_string(run.checksum) + " then " + std::to_string(checksum) +
                             ")");
  }
}

struct Data {
  std::vector<std::unique_ptr<PlacedDataset>> sets;
  [[nodiscard]] std::vector<const PlacedDataset*> views() const {
    std::vector<const PlacedDataset*> out;
    for (const auto& s : sets) out.push_back(s.get());
    return out;
  }
  Tuple* add(const sim::WorkloadSpec& spec, const HostMap& host, const RunOptions& options,
             const char* name, std::uint64_t elements) {
    sets.push_back(std::make_unique<PlacedDataset>(name, static_cast<std::size_t>(elements),
                                                   sizeof(Tuple), sim::DatasetKind::kPartitioned,
                                                   spec.memory, host, options.huge_pages,
                                                   options.weighted_interleave_by));
    return sets.back()->as<Tuple>();
  }
};

// Range v's lower key bound: R's keys are [0, |R|), range v = chunk v.
std::vector<std::uint64_t> range_bounds(std::uint64_t nr, int workers) {
  std::vector<std::uint64_t> lower(static_cast<std::size_t>(workers));
  for (int v = 0; v < workers; ++v)
    lower[static_cast<std::size_t>(v)] = PlacedDataset::chunk(nr, v, workers).first;
  return lower;
}

// The piece of a sorted fact run [cb, ce) in range w: [first key >= lower[w], first key >= lower[w
// + 1]).
Range fact_piece(const Tuple* facts, Range run, const std::vector<std::uint64_t>& lower,
                 std::size_t w) {
  const auto at = [&](std::size_t v) -> std::size_t {
    if (v == 0) return run.first;
    if (v >= lower.size()) return run.second;
    return static_cast<std::size_t>(
        std::lower_bound(facts + run.first, facts + run.second, Tuple{lower[v], 0}, by_key) -
        facts);
  };
  return {at(w), at(w + 1)};
}

struct Order {
  sim::ShuffleOrder order;
  std::vector<std::size_t> position;  // outer position of each worker
  Order(const TeamPlan& plan, const sim::WorkloadSpec& spec)
      : order(sim::shuffle_order(plan.model_threads, spec.algorithm, spec.seed,
                                 spec.producer_orders)),
        position(order.outer.size()) {
    for (std::size_t o = 0; o < order.outer.size(); ++o)
      position[static_cast<std::size_t>(order.outer[o])] = o;
  }
  [[nodiscard]] std::size_t producer(std::size_t worker, std::size_t k) const {
    return static_cast<std::size_t>(order.producers[position[worker]][k]);
  }
};

RealRun run_merge_only(ThreadTeam& team, const TeamPlan& plan, const HostMap& host,
                       const sim::WorkloadSpec& spec, const RunOptions& options) {
  const std::uint64_t nr = build_rows(spec);
  const std::uint64_t ns = input_rows(spec);
  const int workers = team.size();
  const auto wn = static_cast<std::size_t>(workers);
  const ProbeData probe_gen(spec);
  Data data;
  Tuple* facts = data.add(spec, host, options, "fact runs", ns);
  Tuple* dims = data.add(spec, host, options, "dimension runs", nr);
  // Fact runs: each worker's chunk of S, sorted by key (whoever first-touches a chunk sorts it).
  data.sets[0]->initialise(team, [&](int, std::size_t b, std::size_t e) {
    for (int p = 0; p < workers; ++p) {
      const auto [cb, ce] = PlacedDataset::chunk(ns, p, workers);
      if (cb < b || ce > e || cb == ce) continue;
      probe_gen.fill(cb, {facts + cb, ce - cb});
      sort_by_key({facts + cb, ce - cb});
    }
  });
  // Dimension runs: R sorted by key, worker w's run = the w-th chunk (its key range).
  std::vector<Tuple> r(nr);
  BuildData(spec).fill(0, r);
  sort_by_key(r);
  data.sets[1]->initialise(team, [&](int, std::size_t b, std::size_t e) {
    std::copy(r.begin() + static_cast<std::ptrdiff_t>(b),
              r.begin() + static_cast<std::ptrdiff_t>(e), dims + b);
  });
  std::vector<std::uint64_t> lower(wn);
  for (int w = 0; w < workers; ++w) {
    const std::size_t b = PlacedDataset::chunk(nr, w, workers).first;
    lower[static_cast<std::size_t>(w)] = b < nr ? r[b].key : kEmptyKey;
  }
  std::vector<std::vector<Range>> piece(wn, std::vector<Range>(wn));
  for (std::size_t p = 0; p < wn; ++p) {
    const Range run = PlacedDataset::chunk(ns, static_cast<int>(p), workers);
    for (std::size_t w = 0; w < wn; ++w) piece[p][w] = fact_piece(facts, run, lower, w);
  }
  const Order order(plan, spec);
  const bool tight = spec.sync == sim::SyncMode::kTight;
  RealRun run;
  bool first = true;
  JoinTotals result;
  std::vector<JoinTotals> parts(wn);
  time_repetitions(options, run, [&](std::vector<PhaseTime>& phases) {
    std::vector<double> marks(wn + 1, 0.0);
    marks[0] = now_seconds();
    team.run([&](int w) {
      const auto wi = static_cast<std::size_t>(w);
      const auto [db, de] = PlacedDataset::chunk(nr, w, workers);
      const std::span<const Tuple> dim_run(dims + db, de - db);
      JoinTotals mine;
      for (std::size_t k = 0; k < wn; ++k) {
        const auto [fb, fe] = piece[order.producer(wi, k)][wi];
        mine += merge_join({facts + fb, fe - fb}, dim_run);
        if (tight) {
          team.barrier();
          if (w == 0) marks[k + 1] = now_seconds();
        }
      }
      parts[wi] = mine;
    });
    const double t1 = now_seconds();
    phases.clear();
    if (tight) {
      for (std::size_t k = 0; k < wn; ++k)
        phases.push_back({"step " + std::to_string(k), marks[k + 1] - marks[k]});
    } else {
      phases.push_back({"merge", t1 - marks[0]});
    }
    result = JoinTotals{};
    for (const JoinTotals& p : parts) result += p;
    same_result(run, result.checksum, first);
    return t1 - marks[0];
  });
  record_observations(plan, team, data.views(), run);
  run.work = static_cast<double>(nr + ns);
  if (options.verify) {
    r = {};
    std::vector<std::uint64_t> value_of;
    check(result, reference(spec, nr, ns, value_of));
    run.verified = true;
    run.verification = "matches the reference (R's value per key, direct-addressed): " +
                       std::to_string(result.matches) + " matches, checksum sum(r.value + s.value)";
  }
  return run;
}

RealRun run_all_phases(ThreadTeam& team, const TeamPlan& plan, const HostMap& host,
                       const sim::WorkloadSpec& spec, const RunOptions& options) {
  const std::uint64_t nr = build_rows(spec);
  const std::uint64_t ns = input_rows(spec);
  const int workers = team.size();
  const auto wn = static_cast<std::size_t>(workers);
  const ProbeData probe_gen(spec);
  const BuildData build_gen(spec);
  Data data;
  Tuple* facts = data.add(spec, host, options, "fact runs", ns);
  Tuple* chunks = data.add(spec, host, options, "dimension chunks", nr);
  Tuple* pieces = data.add(spec, host, options, "dimension pieces", nr);
  Tuple* runs = data.add(spec, host, options, "dimension runs", nr);
  data.sets[0]->initialise(team, [&](int, std::size_t b, std::size_t e) {
    probe_gen.fill(b, {facts + b, e - b});
  });
  data.sets[1]->initialise(team, [&](int, std::size_t b, std::size_t e) {
    build_gen.fill(b, {chunks + b, e - b});
  });
  for (Tuple* out : {pieces, runs}) {
    data.sets[out == pieces ? 2 : 3]->initialise(team, [&](int, std::size_t b, std::size_t e) {
      std::fill(out + b, out + e, Tuple{0, 0});
    });
  }
  const std::vector<std::uint64_t> lower = range_bounds(nr, workers);
  const Order order(plan, spec);
  const bool tight = spec.sync == sim::SyncMode::kTight;
  // offset[p][v]: where producer p's piece for range v starts in "dimension pieces"; count[p][v]:
  // its tuples.
  std::vector<std::vector<std::size_t>> offset(wn), count(wn);
  RealRun run;
  bool first = true;
  JoinTotals result;
  std::vector<JoinTotals> parts(wn);
  time_repetitions(options, run, [&](std::vector<PhaseTime>& phases) {
    team.run(
        [&](int w) {  // untimed: the fact chunks as generated (the last repetition sorted them)
          const auto [b, e] = PlacedDataset::chunk(ns, w, workers);
          probe_gen.fill(b, {facts + b, e - b});
        });
    std::vector<double> marks(6, 0.0);
    marks[0] = now_seconds();
    team.run([&](int w) {
      const auto wi = static_cast<std::size_t>(w);
      const auto mark = [&](std::size_t i) {
        team.barrier();
        if (w == 0) marks[i] = now_seconds();
      };
      // (1) sort the fact chunk.
      const auto [fb, fe] = PlacedDataset::chunk(ns, w, workers);
      sort_by_key({facts + fb, fe - fb});
      mark(1);
      // (2) histogram and scatter of the dimension chunk into the worker's pieces area.
      const auto [cb, ce] = PlacedDataset::chunk(nr, w, workers);
      const std::span<const Tuple> chunk(chunks + cb, ce - cb);
      count[wi] = range_histogram(chunk, lower);
      offset[wi].assign(wn, cb);
      for (std::size_t v = 1; v < wn; ++v) offset[wi][v] = offset[wi][v - 1] + count[wi][v - 1];
      range_scatter(chunk, lower, offset[wi], pieces);
      mark(2);
      // (3) gather piece p -> w of every producer into the run, in the shuffle's order, then sort
      // it.
      const auto [rb, re] = PlacedDataset::chunk(nr, w, workers);
      std::size_t at = rb;
      for (std::size_t k = 0; k < wn; ++k) {
        const std::size_t p = order.producer(wi, k);
        const std::size_t take =
            std::min(count[p][wi], re - at);  // keys are [0, |R|): exactly the run
        std::copy(pieces + offset[p][wi], pieces + offset[p][wi] + take, runs + at);
        at += take;
        if (tight) team.barrier();
      }
      mark(3);
      sort_by_key({runs + rb, at - rb});
      mark(4);
      // (4) merge the run with every producer's fact piece of this range.
      const std::span<const Tuple> dim_run(runs + rb, at - rb);
      JoinTotals mine;
      for (std::size_t k = 0; k < wn; ++k) {
        const std::size_t p = order.producer(wi, k);
        const auto [pb, pe] =
            fact_piece(facts, PlacedDataset::chunk(ns, static_cast<int>(p), workers), lower, wi);
        mine += merge_join({facts + pb, pe - pb}, dim_run);
        if (tight) team.barrier();
      }
      parts[wi] = mine;
    });
    marks[5] = now_seconds();
    phases = {{"sort facts", marks[1] - marks[0]},
              {"partition", marks[2] - marks[1]},
              {"gather", marks[3] - marks[2]},
              {"sort dimension", marks[4] - marks[3]},
              {"merge", marks[5] - marks[4]}};
    result = JoinTotals{};
    for (const JoinTotals& p : parts) result += p;
    same_result(run, result.checksum, first);
    return marks[5] - marks[0];
  });
  record_observations(plan, team, data.views(), run);
  run.work = static_cast<double>(nr + ns);
  if (options.verify) {
    std::vector<std::uint64_t> value_of;
    check(result, reference(spec, nr, ns, value_of));
    for (std::uint64_t i = 0; i < nr; ++i) {
      if (runs[i].key != i || runs[i].value != value_of[i])
        throw std::runtime_error(
            "the sort-merge join's dimension runs: position " + std::to_string(i) + " holds key " +
            std::to_string(runs[i].key) + " (expected " + std::to_string(i) +
            " with R's value): a dimension tuple was gathered twice or not at all");
    }
    run.verified = true;
    run.verification = "matches the reference (R's value per key, direct-addressed): " +
                       std::to_string(result.matches) +
                       " matches, checksum sum(r.value + s.value); the dimension runs hold every R "
                       "tuple once, sorted";
  }
  return run;
}

}  // namespace

RealRun run_sort_merge_join(ThreadTeam& team, const TeamPlan& plan, const HostMap& host,
                            const sim::WorkloadSpec& spec, const RunOptions& options) {
  if (spec.sort_merge_phases == sim::SortMergePhases::kAll)
    return run_all_phases(team, plan, host, spec, options);
  return run_merge_only(team, plan, host, spec, options);
}

double sort_merge_join_memory_bytes(const sim::WorkloadSpec& spec) {
  const double n = spec.data.records;
  const double r = spec.data.build_records;
  const double tuple = 16.0;
  if (spec.sort_merge_phases == sim::SortMergePhases::kAll)
    return n * tuple + 3.0 * r * tuple + r * (tuple + 8.0);
  return (n + r) * tuple + r * tuple + r * (tuple + 8.0);  // runs, sorted R; reference: R, values
}

}  // namespace numatwin::validate
