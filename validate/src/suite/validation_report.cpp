#include "numatwin/model/file_io.hpp"
#include "numatwin/validate/suite/validation_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace numatwin::validate {
namespace {

using Json = nlohmann::ordered_json;

Json costs_json(KernelCosts c) {
  Json out = Json::object();
  for (const CostParameter& p : cost_parameters()) out[p.name] = *p.field(c);
  return out;
}

double largest_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

}  // namespace

std::vector<CostMove> cost_moves(const ValidationReport& report) {
  std::vector<CostMove> out;
  if (!report.cost_fit) return out;
  KernelCosts before = report.cost_fit->before;
  KernelCosts after = report.cost_fit->after;
  for (const CostParameter& p : cost_parameters()) {
    CostMove m;
    m.name = p.name;
    m.before = *p.field(before);
    m.after = *p.field(after);
    for (const DerivedCost& d : report.derived_costs) {
      if (d.name != m.name) continue;
      m.measured = true;
      m.low = d.low;
      m.high = d.high;
    }
    out.push_back(m);
  }
  return out;
}

Json details_json(const KernelComparison& c) {
  const RealRun& m = c.measured;
  Json threads = Json::array();
  for (const ThreadObservation& t : m.threads) {
    threads.push_back({{"worker", t.worker}, {"model_cpu", t.model_cpu}, {"intended_cpu", t.intended_cpu},
                       {"cpu_at_start", t.cpu_at_start}, {"cpu_at_end", t.cpu_at_end}, {"node_at_end", t.node_at_end}});
  }
  Json datasets = Json::array();
  for (const DatasetObservation& d : m.datasets) {
    Json nodes = Json::object();
    for (const auto& [node, pages] : d.pages.pages_per_node) nodes[std::to_string(node)] = pages;
    datasets.push_back({{"name", d.name}, {"bytes", d.bytes}, {"pages", d.pages.pages}, {"pages_per_node", nodes},
                        {"pages_not_present", d.pages.pages_not_present}});
  }
  Json phases = Json::array();
  for (const PhaseTime& p : m.phases) phases.push_back({{"name", p.name}, {"seconds", p.seconds}});
  Json predicted_phases = Json::array();
  for (const PredictedPhase& p : c.predicted.phases) predicted_phases.push_back({{"name", p.name}, {"wall_s", p.wall_s}});
  Json out{{"measured_s", m.seconds},
           {"predicted_s", c.predicted.seconds},
           {"error", c.error()},
           {"work", m.work},
           {"work_unit", m.work_unit},
           {"repetition_s", m.repetition_seconds},
           {"phases", phases},
           {"predicted_phases", predicted_phases},
           {"allocator", c.allocator},
           {"huge_pages", m.huge_pages},
           {"huge_pages_setting", m.huge_pages_setting},
           {"model_huge_pages", std::string(model::huge_pages_name(c.spec.huge_pages))},
           {"verified", m.verified},
           {"verification", m.verification},
           {"checksum", m.checksum},
           {"model_bottleneck", c.predicted.bottleneck},
           {"model_local_access_ratio", c.predicted.local_access_ratio},
           {"threads", threads},
           {"datasets", datasets}};
  Json thp{{"enabled", m.transparent_huge_pages.enabled}, {"defrag", m.transparent_huge_pages.defrag}};
  if (!m.transparent_huge_pages.why.empty()) thp["not_read"] = m.transparent_huge_pages.why;
  out["transparent_hugepage"] = thp;
  Json balancing{{"setting", m.numa_balancing}};
  if (m.numa_counters) {
    balancing["pte_updates"] = m.numa_counters->pte_updates;
    balancing["hint_faults"] = m.numa_counters->hint_faults;
    balancing["hint_faults_local"] = m.numa_counters->hint_faults_local;
    balancing["pages_migrated"] = m.numa_counters->pages_migrated;
  } else {
    balancing["not_measured"] = m.numa_counters_why;
  }
  out["numa_balancing"] = balancing;
  if (!m.weighted_interleave.empty()) out["weighted_interleave"] = m.weighted_interleave;
  if (m.work_unit == "tuples") {
    out["measured_mtuples_per_s"] = m.work / m.seconds / 1e6;
    out["predicted_mtuples_per_s"] = m.work / c.predicted.seconds / 1e6;
  }
  return out;
}

Json to_json(const model::Topology& topology, const ValidationReport& report) {
  (void)topology;
  Json kernels = Json::array();
  std::vector<double> errors;
  for (std::size_t i = 0; i < report.kernels.size(); ++i) {
    const KernelComparison& c = report.kernels[i];
    errors.push_back(c.error());
    Json k{{"id", c.id}, {"workload", sim::workload_kind_name(c.spec.kind)}};
    // Algorithm and sync mean something only for the shuffle family and the merge orders; a hash
    // join's algorithm is its join algorithm (radix or non-partitioned), without sync.
    if (sim::is_shuffle_family(c.spec.kind) || c.spec.kind == sim::WorkloadKind::kSortMergeJoin ||
        c.spec.kind == sim::WorkloadKind::kPartitionedAggregation) {
      k["algorithm"] = sim::algorithm_name(c.spec.algorithm);
      k["sync"] = sim::sync_name(c.spec.sync);
    } else if (c.spec.kind == sim::WorkloadKind::kHashJoin) {
      k["algorithm"] = sim::join_algorithm_name(c.spec.join_algorithm);
    }
    k["threads"] = c.spec.threads;
    k["predicted_gbps"] = c.predicted_gbps();
    k["measured_gbps"] = c.measured_gbps();
    k["details"] = details_json(c);
    if (report.cost_fit) {
      const double predicted_s = c.measured.seconds * (1.0 + report.cost_fit->errors_after[i]);
      k["details"]["error_after_fit"] = report.cost_fit->errors_after[i];  // of the time, like "error"
      if (i < report.cross_validated.size()) k["details"]["error_cross_validated"] = report.cross_validated[i];
      k["details"]["predicted_s_after_fit"] = predicted_s;
      k["details"]["predicted_gbps_after_fit"] = work_bytes(c.spec) / predicted_s / 1e9;
    }
    kernels.push_back(k);
  }
  Json summary{{"kernels", report.kernels.size()},
               {"median_abs_error", median_abs(errors)},
               {"largest_abs_error", largest_abs(errors)}};
  if (!report.before_costs_source.empty()) summary["costs_before_fit"] = report.before_costs_source;
  Json out{{"format", "numatwin-validation-report"},
           {"format_version", 1},
           {"machine", report.machine},
           {"host", report.host},
           {"kernels", kernels},
           {"summary", summary}};
  if (report.measured_costs) out["measured_costs"] = *report.measured_costs;
  if (report.operator_costs) out["operator_costs"] = *report.operator_costs;
  if (report.switches) out["switches"] = *report.switches;
  if (report.cost_fit) {
    const CostFit& f = *report.cost_fit;
    out["summary"]["median_abs_error_after_fit"] = median_abs(f.errors_after);
    out["summary"]["largest_abs_error_after_fit"] = largest_abs(f.errors_after);
    if (!report.cross_validated.empty()) {
      out["summary"]["median_abs_error_cross_validated"] = median_abs(report.cross_validated);
      out["summary"]["largest_abs_error_cross_validated"] = largest_abs(report.cross_validated);
    }
    out["cost_fit"] = {{"method",
                        "coordinate descent on log costs within plausible ranges, with restarts; minimises the sum of "
                        "sqrt(l^2 + 0.02^2) - 0.02, l = log(predicted/measured), over the training runs (smoothed least "
                        "absolute deviations); cross-validation: 4 folds, a kernel's runs at different thread counts in "
                        "different folds"},
                       {"training_runs", f.training_runs},
                       {"held_out_runs", f.held_out_runs},
                       {"before_source", report.before_costs_source},
                       {"before", costs_json(f.before)},
                       {"after", costs_json(f.after)},
                       {"notes", f.notes}};
    Json moves = Json::array();
    for (const CostMove& m : cost_moves(report)) {
      Json move{{"name", m.name}, {"before", m.before}, {"after", m.after}, {"factor", m.factor()}, {"measured", m.measured}};
      if (m.measured) {
        move["measured_low"] = m.low;
        move["measured_high"] = m.high;
      }
      moves.push_back(move);
    }
    out["cost_fit"]["moves"] = moves;
  }
  return out;
}

std::string to_csv(const ValidationReport& report) {
  std::string out =
      "id,workload,algorithm,sync,threads,placement,allocator,huge_pages,measured_s,predicted_s,error,measured_gbps,"
      "predicted_gbps,error_after_fit,error_cross_validated,verified\n";
  for (std::size_t i = 0; i < report.kernels.size(); ++i) {
    const KernelComparison& c = report.kernels[i];
    char numbers[512];
    std::snprintf(numbers, sizeof numbers, "%.6g,%.6g,%.4f,%.4f,%.4f", c.measured.seconds, c.predicted.seconds, c.error(),
                  c.measured_gbps(), c.predicted_gbps());
    std::string fit = ",";
    if (report.cost_fit) {
      char text[96];
      std::snprintf(text, sizeof text, "%.4f,", report.cost_fit->errors_after[i]);
      fit = text;
      if (i < report.cross_validated.size()) {
        std::snprintf(text, sizeof text, "%.4f", report.cross_validated[i]);
        fit += text;
      }
    }
    const std::string algorithm = c.spec.kind == sim::WorkloadKind::kHashJoin ? sim::join_algorithm_name(c.spec.join_algorithm)
                                                                               : sim::algorithm_name(c.spec.algorithm);
    out += model::csv_field(c.id) + "," + sim::workload_kind_name(c.spec.kind) + "," + algorithm + "," +
           sim::sync_name(c.spec.sync) + "," + std::to_string(c.spec.threads) + "," +
           model::csv_field(sim::placement_name(c.spec.placement)) + "," + c.allocator + "," +
           (c.measured.huge_pages ? "yes" : "no") + "," + numbers + "," + fit + "," + (c.measured.verified ? "yes" : "no") + "\n";
  }
  return out;
}

}  // namespace numatwin::validate
