#include "commands/sweep_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>
#include <nlohmann/json.hpp>

#include "numatwin/model/file_io.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "run/parallel_for.hpp"
#include "report/phases_text.hpp"
#include "report/prediction_intervals.hpp"
#include "options/range_options.hpp"
#include "run/sim_outcome.hpp"
#include "run/sort_merge_sweep.hpp"
#include "report/sweep_crossover.hpp"
#include "report/progress.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "options/workload_options.hpp"

namespace numatwin::cli {

using Json = nlohmann::ordered_json;

void register_sweep_command(CLI::App& app) {
  {
    auto o = std::make_shared<WorkloadOptions>();
    auto range = std::make_shared<std::string>();
    auto csv = std::make_shared<bool>(false);
    auto json = std::make_shared<bool>(false);
    auto groups_range = std::make_shared<std::string>();
    CLI::App* sweep = app.add_subcommand(
        "sweep",
        "Every variant as the thread count grows (shuffle; sort-merge-join: naive, ring and the designed order, with the time "
        "per phase), or as the groups per partition grow (partitioned-aggregation)");
    o->add_common(sweep);
    o->add_huge_pages(sweep);
    sweep->add_option("--workload", o->workload, "shuffle, partitioned-aggregation or sort-merge-join")
        ->check(CLI::IsMember({"shuffle", "partitioned-aggregation", "sort-merge-join"}))
        ->capture_default_str();
    sweep->add_option("--threads", *range, "Thread counts: N, FIRST:LAST or FIRST:LAST:STEP")->required();
    sweep->add_option("--sync", o->sync,
                      "sort-merge-join, partitioned-aggregation: tight (barrier per step) or loose (shuffles sweep both)")
        ->capture_default_str();
    sweep->add_option("--groups-per-partition", *groups_range,
                      "partitioned-aggregation: FIRST:LAST:FACTOR groups per partition (e.g. 10:1e7:10)");
    sweep->add_flag("--csv", *csv, "Print CSV");
    sweep->add_flag("--json", *json, "Print JSON");
    auto samples = std::make_shared<int>(64);
    sweep->add_option("--interval-samples", *samples,
                      "Samples of the uncertain costs for every row's 90 % interval and the crossover's (0: none)")
        ->capture_default_str();
    sweep->callback([o, range, csv, json, groups_range, samples] {
      const model::Topology t = model::find_topology(o->topology);
      if (*samples < 0 || *samples == 1) throw std::invalid_argument("--interval-samples must be 0 (off) or >= 2");
      const bool partitioned = o->workload == "partitioned-aggregation";
      const bool sort_merge = o->workload == "sort-merge-join";
      const bool operators = partitioned || sort_merge;
      std::vector<SortMergePoint> sort_merge_points;
      std::vector<double> group_counts{0.0};  // 0: keep --groups
      if (partitioned && !groups_range->empty()) group_counts = parse_factor_range(*groups_range);
      const sim::CostBasis basis = o->cost_basis(t);
      // One set of uncertain costs for the whole sweep (every cost a variant at the first point
      // rests on), drawn once: sample k is the same machine in every row, so crossovers can be
      // taken per sample.
      std::vector<std::string> uncertain;
      {  // the costs that matter at the sweep's corners: a cost may matter only at large sizes
        const std::vector<int> counts = parse_thread_range(*range, t.total_hardware_threads());
        std::vector<int> corner_counts{counts.front()};
        if (counts.back() != counts.front()) corner_counts.push_back(counts.back());
        std::vector<double> corner_groups{group_counts.front()};
        if (group_counts.back() != group_counts.front()) corner_groups.push_back(group_counts.back());
        for (int n : corner_counts) {
          for (double g : corner_groups) {
            sim::WorkloadSpec corner = o->spec(t, n);
            if (g > 0.0) corner.data.keys.groups = g * n;
            for (const sim::WorkloadSpec& s : sim::algorithm_variants(corner)) {
              for (const std::string& name : sim::uncertain_costs(basis, sim::costs_depended_on(t, s, parallel_for))) {
                if (std::find(uncertain.begin(), uncertain.end(), name) == uncertain.end()) uncertain.push_back(name);
              }
            }
          }
        }
      }
      const int drawn = uncertain.empty() ? 0 : *samples;
      // times[n][variant][group point]: the point prediction, then each sample's.
      SweepTimes times;
      Json rows = Json::array();
      std::string csv_text =
          "threads,groups_per_partition,workload,strategy,algorithm,sync,time_s,input_gbps,input_mtuples_per_s,memory_traffic_gbps,"
          "local_access_ratio,busiest_resource,busiest_mean_utilisation\n";
      TextTable table(with_rate_columns({"threads", "groups/partition", "variant"}, operators,
                                        {operators ? "Mtuples/s 90 %" : "GB/s 90 %", "LAR", "busiest resource"}));
      // The points in batches of whole thread counts: a batch's simulations run in parallel
      // (they are independent; the samples of each row's interval are drawn in parallel inside),
      // then its rows are written in order. Batches, not the whole sweep at once: a result holds
      // per-step utilisations, threads x resources floats.
      struct SweepJob {
        int n = 0;
        double groups_per_partition = 0.0;
        sim::WorkloadSpec spec;
        std::optional<Outcome> outcome;
      };
      std::vector<SweepJob> batch;
      std::vector<std::pair<std::string, sim::PointVersusInterval>> outside;  // rates outside their interval
      const auto write_batch = [&] {
        parallel_for(batch.size(), [&](std::size_t i) { batch[i].outcome.emplace(simulate(t, batch[i].spec, false)); });
        for (const SweepJob& job : batch) {
          const int n = job.n;
          const sim::WorkloadSpec& s = job.spec;
          const Outcome& outcome = *job.outcome;
          Json row = summary_json(outcome);
          if (partitioned) row["groups_per_partition"] = job.groups_per_partition;
          if (sort_merge) {
            row["sort_merge_phases"] = sim::sort_merge_phases_name(s.sort_merge_phases);
            row["phases"] = phases_json(outcome.result);
            const char* order = s.algorithm == sim::ShuffleAlgorithm::kScheduled ? "designed" : s.algorithm == sim::ShuffleAlgorithm::kRing ? "ring" : "naive";
            sort_merge_points.push_back({n, order, outcome.result});
          }
          std::vector<double> sample_times;
          std::vector<double> sample_rates;
          std::optional<sim::PointVersusInterval> rate_point;
          if (drawn > 0) {
            sim::IntervalOptions options;
            options.samples = drawn;
            const std::vector<sim::WorkloadSpec> drawn_specs = sim::cost_samples(s, basis, uncertain, options);
            sample_times.assign(drawn_specs.size(), 0.0);
            sample_rates.assign(drawn_specs.size(), 0.0);
            parallel_for(drawn_specs.size(), [&](std::size_t k) {
              const sim::SimulationResult r = simulate(t, drawn_specs[k], false).result;
              sample_times[k] = r.time_s;
              sample_rates[k] = headline_rate(drawn_specs[k], r);
            });
            const sim::Interval rate = sim::interval_of(sample_rates);
            row["rate_interval"] = Json{{"median", rate.median}, {"p5", rate.low}, {"p95", rate.high}};
            rate_point = sim::point_versus_interval(headline_rate(s, outcome.result), rate, basis, uncertain);
            row["rate_point"] = point_json(*rate_point, "rate", operators ? " M tuples/s" : " GB/s");
            if (rate_point->side != sim::PointSide::kInside) {
              // Why: only the costs this row rests on (the sweep draws every cost some variant does).
              rate_point = sim::point_versus_interval(rate_point->point, rate, basis,
                                                      sim::uncertain_costs(basis, sim::costs_depended_on(t, s, parallel_for)));
              row["rate_point"] = point_json(*rate_point, "rate", operators ? " M tuples/s" : " GB/s");
              outside.emplace_back(fmt::format("{} threads{}, {}", n,
                                               partitioned ? fmt::format(", {:g} groups per partition", job.groups_per_partition) : "",
                                               label(s)),
                                   *rate_point);
            }
          }
          times.add(n, label(s), job.groups_per_partition, outcome.result.time_s, sample_times);
          rows.push_back(row);
          csv_text += fmt::format("{},{},{},{},{},{},{:.9g},{:.6g},{:.6g},{:.6g},{:.6f},{},{:.6f}\n", n,
                                  partitioned ? fmt::format("{:g}", job.groups_per_partition) : std::string(),
                                  sim::workload_kind_name(s.kind), partitioned ? sim::strategy_name(s.strategy) : std::string(),
                                  sim::algorithm_name(s.algorithm), sim::sync_name(s.sync), outcome.result.time_s,
                                  outcome.input_gbps(), outcome.input_mtuples_per_s(), outcome.memory_traffic_gbps(),
                                  outcome.result.local_access_ratio(),
                                  model::csv_field(row["busiest_resource"].get<std::string>()),
                                  row["busiest_mean_utilisation"].get<double>());
          table.add_row(with_rates({std::to_string(n), partitioned ? fmt::format("{:g}", job.groups_per_partition) : "-", label(s)},
                                   outcome, operators,
                                   {rate_point ? interval_cell(*rate_point) : "-",
                                    fmt::format("{:.3f}", outcome.result.local_access_ratio()), busiest_text(outcome.result)}));
        }
        batch.clear();
      };
      const std::vector<int> thread_counts = parse_thread_range(*range, t.total_hardware_threads());
      const int points = static_cast<int>(thread_counts.size() * group_counts.size());
      int points_queued = 0;
      ElapsedProgress progress("sweeping");
      for (int n : thread_counts) {
        for (double per_partition : group_counts) {
          sim::WorkloadSpec base = o->spec(t, n);
          if (per_partition > 0.0) base.data.keys.groups = per_partition * n;
          const std::vector<sim::WorkloadSpec> runs = sort_merge ? sort_merge_variants(t, base) : sim::algorithm_variants(base);
          for (const sim::WorkloadSpec& s : runs) batch.push_back(SweepJob{n, base.data.keys.groups / n, s, std::nullopt});
          ++points_queued;
        }
        if (batch.size() >= 32) {
          write_batch();
          progress.update(points_queued, points, fmt::format("{} threads done", n));
        }
      }
      write_batch();
      progress.update(points, points);
      // The study's question (Li et al.): up to which state does ring migration beat the ring shuffle?
      std::vector<SweepCrossover> crossovers;
      if (partitioned && group_counts.size() > 1) {
        for (int n : times.thread_counts()) {
          SweepCrossover c = times.crossover(n, "partitioned-aggregation migration ring tight",
                                             "partitioned-aggregation shuffle ring tight");
          c.a = "ring migration";
          c.b = "ring shuffle";
          c.x_name = "groups per partition";
          crossovers.push_back(c);
        }
      }
      if (*csv) {
        std::cout << csv_text;
      } else if (*json) {
        Json out{{"topology", t.name}, {"costs", sim::cost_basis_summary(basis, uncertain)}, {"samples", drawn}, {"runs", rows}};
        out["pages"] = pages_text(t, *model::parse_huge_pages(o->huge_pages));
        Json list = Json::array();
        for (const SweepCrossover& c : crossovers) list.push_back(crossover_json(c));
        out["crossovers"] = list;
        std::cout << out.dump(2) << "\n";
      } else {
        std::cout << table.render();
        if (sort_merge) std::cout << sort_merge_phase_table(sort_merge_points);
        if (drawn > 0) {
          std::cout << fmt::format("intervals: {} samples of {} uncertain costs, the rate's median [5 %, 95 %] beside its point at the "
                                   "costs' own values; {}\n",
                                   drawn, uncertain.size(), sim::cost_basis_summary(basis, uncertain));
          std::cout << table_point_notes(outside, "rate", operators ? " M tuples/s" : " GB/s");
        }
        for (const SweepCrossover& c : crossovers) std::cout << crossover_text(c) << "\n";
        std::cout << pages_text(t, *model::parse_huge_pages(o->huge_pages)) << "\n";
      }
    });
  }
}

}  // namespace numatwin::cli
