// The allocating variants of MEDIAN and the hash join (allocating_kernels.hpp has the kernels):
// the same data, datasets placed as the preallocated kernels', the same references.
//
// What is timed (one untimed warm-up, then the repetitions; the median is reported), from the
// team's release to the last worker's end:
//   MEDIAN per group: "append" (every tuple: find or insert its group, append its value, malloc
//   or realloc when the block is full), a barrier, "median and free" (each worker, over its slice
//   of the table: the median of each group's block, then free of the block).
//   Chained hash join: "build" (inserts of R; one malloc per overflow node), a barrier, "probe"
//   (S read-only), a barrier, "free" (each worker frees the chains of its slice of buckets).
// So everything allocated is freed inside the timed part, as a query's operators free their state
// when the query ends. Clearing the table or buckets before a repetition is not timed.
#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "numatwin/validate/kernels/allocating_kernels.hpp"
#include "operator_run_common.hpp"

namespace numatwin::validate {

RealRun run_per_group_median(ThreadTeam& team, const TeamPlan& plan, const HostMap& host, const sim::WorkloadSpec& spec,
                             const RunOptions& options) {
  const std::uint64_t rows = input_rows(spec);
  const std::uint64_t groups = group_count(spec);
  const ProbeData gen(spec);
  std::vector<std::unique_ptr<PlacedDataset>> sets;
  add_dataset(sets, spec, host, options, "input", rows, sizeof(Tuple), sim::DatasetKind::kPartitioned);
  add_dataset(sets, spec, host, options, "hash table", 2 * groups, sizeof(TableEntry), sim::DatasetKind::kShared);
  PlacedDataset& input = *sets[0];
  const TableView table = table_view(*sets[1]);
  fill_probe(team, input, gen);
  sets[1]->initialise(team, [&](int, std::size_t b, std::size_t e) { table.clear(b, e); });
  const int workers = team.size();
  const bool concurrent = workers > 1;
  const Tuple* tuples = input.as<Tuple>();
  RealRun run;
  bool first = true;
  GroupDigest result;
  time_repetitions(options, run, [&](std::vector<PhaseTime>& phases) {
      clear_table(team, table);
      double appended = 0.0;
      const double t0 = now_seconds();
      team.run([&](int w) {
        const auto [b, e] = PlacedDataset::chunk(rows, w, workers);
        per_group_append(table, {tuples + b, e - b}, concurrent);
        team.barrier();
        if (w == 0) appended = now_seconds();
        const auto [sb, se] = PlacedDataset::chunk(table.capacity, w, workers);
        per_group_select_and_free(table, sb, se);
      });
      const double t1 = now_seconds();
      phases = {{"append", appended - t0}, {"median and free", t1 - appended}};
      result = parallel_digest(team, table);
      same_result(run, result.digest, first);
      return t1 - t0;
  });
  record_observations(plan, team, views(sets), run);
  run.work = static_cast<double>(rows);
  if (options.verify) {
    check_digest(result, reference_aggregation(tuples, rows, groups, true), "MEDIAN (per-group allocation)");
    run.verified = true;
    run.verification = "matches the reference (direct-addressed values per key, sorted): " + std::to_string(result.groups) +
                       " groups, digest sum(mix(key) x (2 x median + 1)); each group's values in a block of its own "
                       "(malloc 32 B, realloc doubling), freed in the timed part";
  }
  return run;
}

RealRun run_chained_hash_join(ThreadTeam& team, const TeamPlan& plan, const HostMap& host, const sim::WorkloadSpec& spec,
                              const RunOptions& options) {
  const std::uint64_t nr = build_rows(spec);
  const std::uint64_t ns = input_rows(spec);
  const BuildData build_gen(spec);
  const ProbeData probe_gen(spec);
  const std::uint64_t bucket_count = chained_bucket_count(nr);
  std::vector<std::unique_ptr<PlacedDataset>> sets;
  add_dataset(sets, spec, host, options, "R", nr, sizeof(Tuple), sim::DatasetKind::kPartitioned);
  add_dataset(sets, spec, host, options, "S", ns, sizeof(Tuple), sim::DatasetKind::kPartitioned);
  add_dataset(sets, spec, host, options, "hash table", bucket_count, sizeof(ChainBucket), sim::DatasetKind::kShared);
  fill_build(team, *sets[0], build_gen);
  fill_probe(team, *sets[1], probe_gen);
  const Tuple* r = sets[0]->as<Tuple>();
  const Tuple* s = sets[1]->as<Tuple>();
  ChainedTable table{sets[2]->as<ChainBucket>(), bucket_count, 0};
  while ((std::uint64_t{1} << table.bits) < bucket_count) ++table.bits;
  const auto clear = [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i) {
      table.buckets[i].state.store(0, std::memory_order_relaxed);
      table.buckets[i].key = 0;
      table.buckets[i].value = 0;
      table.buckets[i].next = nullptr;
    }
  };
  sets[2]->initialise(team, [&](int, std::size_t b, std::size_t e) { clear(b, e); });
  const int workers = team.size();
  const bool concurrent = workers > 1;
  RealRun run;
  bool first = true;
  JoinTotals result;
  std::vector<JoinTotals> parts(static_cast<std::size_t>(workers));
  std::vector<std::uint64_t> allocated(static_cast<std::size_t>(workers), 0), freed(allocated), split(allocated);
  std::uint64_t nodes = 0;
  std::uint64_t split_nodes = 0;  // the last repetition's nodes across two lines
  time_repetitions(options, run, [&](std::vector<PhaseTime>& phases) {
    double built = 0.0;
    double probed = 0.0;
    const double t0 = now_seconds();
    team.run([&](int w) {
      const auto wi = static_cast<std::size_t>(w);
      const auto [rb, re] = PlacedDataset::chunk(nr, w, workers);
      allocated[wi] = chained_build(table, {r + rb, re - rb}, concurrent, &split[wi]);
      team.barrier();
      if (w == 0) built = now_seconds();
      const auto [sb, se] = PlacedDataset::chunk(ns, w, workers);
      parts[wi] = chained_probe(table, {s + sb, se - sb});
      team.barrier();
      if (w == 0) probed = now_seconds();
      const auto [bb, be] = PlacedDataset::chunk(bucket_count, w, workers);
      freed[wi] = chained_free(table, bb, be);
    });
    const double t1 = now_seconds();
    phases = {{"build", built - t0}, {"probe", probed - built}, {"free", t1 - probed}};
    result = JoinTotals{};
    for (const JoinTotals& p : parts) result += p;
    same_result(run, result.checksum, first);
    std::uint64_t a = 0, f = 0;
    for (std::size_t w = 0; w < allocated.size(); ++w) {
      a += allocated[w];
      f += freed[w];
    }
    if (a != f)
      throw std::runtime_error("the chained hash join allocated " + std::to_string(a) + " overflow nodes but freed " +
                               std::to_string(f));
    nodes = a;
    split_nodes = 0;
    for (std::uint64_t x : split) split_nodes += x;
    return t1 - t0;
  });
  record_observations(plan, team, views(sets), run);
  run.work = static_cast<double>(nr + ns);
  if (options.verify) {
    check_join(result, reference_join(r, nr, s, ns, false), "the chained hash join (per-bucket allocation)");
    run.verified = true;
    const std::uint64_t permille = (split_nodes * 1000 + nodes / 2) / std::max<std::uint64_t>(1, nodes);
    run.verification = "matches the reference (R's value per key, direct-addressed): " + std::to_string(result.matches) +
                       " matches, checksum sum(r.value + s.value); " + std::to_string(bucket_count) + " buckets, " +
                       std::to_string(nodes) + " overflow nodes malloc'd and freed per repetition, " + std::to_string(split_nodes) +
                       " of them (" + std::to_string(permille / 10) + "." + std::to_string(permille % 10) + " %) across two 64-byte lines in the last";
  }
  return run;
}

}  // namespace numatwin::validate
