#include "run/sim_outcome.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "numatwin/model/energy.hpp"
#include "numatwin/model/tlb.hpp"
#include "numatwin/model/placeholders.hpp"

namespace numatwin::cli {

using Json = nlohmann::ordered_json;

Outcome simulate(const model::Topology& t, const sim::WorkloadSpec& spec, bool timeline) {
  sim::Simulation simulation(t);
  sim::SimulationOptions options;
  options.record_timeline = timeline;
  Outcome outcome{spec, {}, {}, {}, {}, {}, {}};
  const sim::Plan plan = sim::build_plan(t, spec, &outcome.report);
  outcome.result = simulation.run(plan, options);
  outcome.energy = sim::estimate_energy(t, outcome.result);
  outcome.energy_basis = model::energy_basis(t.energy).description();
  outcome.tlb_basis = model::tlb_basis(t.tlb).description();
  outcome.placeholders = model::placeholders_of(t);
  if (t.links.empty()) {  // a one-node machine: the link and coherence figures enter no prediction
    std::erase_if(outcome.placeholders, [](const std::string& p) {
      return p.rfind("/coherence/", 0) == 0 || p.rfind("/links/", 0) == 0 || p == "/performance/link_queue_ns";
    });
  }
  return outcome;
}

std::string placeholders_text(const Outcome& o) {
  if (o.placeholders.empty()) return "";
  std::string list;
  for (const std::string& p : o.placeholders) list += (list.empty() ? "" : ", ") + p;
  const bool one = o.placeholders.size() == 1;
  return fmt::format("machine: {} figure{} of the topology {} placeholder{}, not measured ({})", o.placeholders.size(), one ? "" : "s",
                     one ? "is a" : "are", one ? "" : "s", list);
}

std::string pages_text(const model::Topology& t, model::HugePages setting) {
  const char* meaning = setting == model::HugePages::kOn    ? "2 MiB pages for every buffer"
                        : setting == model::HugePages::kOff ? "4 KiB pages for every buffer"
                                                                    : "2 MiB pages for the placed datasets, 4 KiB for the allocator's heap";
  return fmt::format("pages: huge pages {} ({}); {}", model::huge_pages_name(setting), meaning,
                     model::tlb_basis(t.tlb).description());
}

std::string label(const sim::WorkloadSpec& s) {
  if (s.kind == sim::WorkloadKind::kPartitionedAggregation) {
    return "partitioned-aggregation " + sim::strategy_name(s.strategy) + " " + sim::algorithm_name(s.algorithm) + " " +
           sim::sync_name(s.sync);
  }
  if (s.kind == sim::WorkloadKind::kHashJoin) return "hash-join " + sim::join_algorithm_name(s.join_algorithm);
  if (!sim::is_shuffle_family(s.kind) && s.kind != sim::WorkloadKind::kSortMergeJoin) return sim::workload_kind_name(s.kind);
  return sim::workload_kind_name(s.kind) + " " + sim::algorithm_name(s.algorithm) + " " + sim::sync_name(s.sync);
}

Json summary_json(const Outcome& o) {
  const sim::SimulationResult& r = o.result;
  const int busiest = r.busiest_resource();
  Json out{{"workload", sim::workload_kind_name(o.spec.kind)},
            {"algorithm", sim::algorithm_name(o.spec.algorithm)},
            {"sync", sim::sync_name(o.spec.sync)},
            {"threads", o.spec.threads},
            {"placement", sim::placement_name(o.spec.placement)}};
  if (sim::is_shuffle_family(o.spec.kind)) {
    out["bytes"] = o.spec.total_bytes;
  } else {
    out["strategy"] = sim::strategy_name(o.spec.strategy);
    out["join_algorithm"] = sim::join_algorithm_name(o.spec.join_algorithm);
    out["records"] = o.spec.data.records;
    out["build_records"] = o.spec.data.build_records;
    out["keys"] = sim::key_distribution_name(o.spec.data.keys);
    out["groups"] = o.spec.data.keys.groups;
  }
  out.update(Json{{"time_s", r.time_s},
              {"input_gbps", o.input_gbps()},
              {"input_mtuples_per_s", o.input_mtuples_per_s()},
              {"memory_traffic_gbps", o.memory_traffic_gbps()},
              {"bytes_moved", r.bytes},
              {"local_access_ratio", r.local_access_ratio()},
              {"energy_j", o.energy.total_j()},
              {"energy_basis", o.energy_basis},
              {"huge_pages", std::string(model::huge_pages_name(o.spec.huge_pages))},
              {"tlb_basis", o.tlb_basis},
              {"placeholders", o.placeholders},
              {"busiest_resource", busiest >= 0 ? r.resources[busiest].name : ""},
              {"busiest_mean_utilisation", busiest >= 0 ? r.mean_utilisation[busiest] : 0.0},
              {"bottleneck_resource", r.bottleneck_resource() >= 0 ? r.resources[r.bottleneck_resource()].name : ""},
              {"bottleneck_saturated_fraction", r.bottleneck_resource() >= 0 ? r.saturated_fraction[r.bottleneck_resource()] : 0.0},
              {"bound_thread_s",
               {{"saturated_resources", r.bound.resource_s}, {"miss_buffers", r.bound.miss_buffers_s}, {"cores", r.bound.core_s}, {"cache_path", r.bound.cache_path_s}}},
              {"events", r.events},
              {"model_rounds", r.solver_rounds}});
  return out;
}

Json detail_json(const Outcome& o, bool timeline) {
  Json out = summary_json(o);
  const sim::SimulationResult& r = o.result;
  Json resources = Json::array();
  for (std::size_t i = 0; i < r.resources.size(); ++i) {
    resources.push_back(Json{{"name", r.resources[i].name},
                             {"capacity_gbps", r.resources[i].capacity_bytes_per_s / 1e9},
                             {"mean_utilisation", r.mean_utilisation[i]},
                             {"saturated_fraction", r.saturated_fraction[i]}});
  }
  out["resources"] = resources;
  Json steps = Json::array();
  for (const sim::StepStats& s : r.steps) {
    steps.push_back(Json{{"step", s.step}, {"begin_s", s.begin_s}, {"end_s", s.end_s}, {"bytes", s.bytes},
                         {"mean_utilisation", s.mean_utilisation}});
  }
  out["steps"] = steps;
  if (timeline) {
    Json segments = Json::array();
    for (const sim::TimelineSegment& seg : r.timeline) {
      segments.push_back(Json{{"begin_s", seg.begin_s}, {"end_s", seg.end_s}, {"utilisation", seg.utilisation}});
    }
    out["timeline"] = segments;
  }
  return out;
}

std::vector<std::string> with_rate_columns(std::vector<std::string> before, bool operators, const std::vector<std::string>& after) {
  if (operators) {
    before.insert(before.end(), {"input Mtuples/s", "input GB/s"});
  } else {
    before.emplace_back("shuffled GB/s");
  }
  before.emplace_back("memory GB/s");
  before.insert(before.end(), after.begin(), after.end());
  return before;
}

std::vector<std::string> with_rates(std::vector<std::string> before, const Outcome& o, bool operators,
                                    const std::vector<std::string>& after) {
  if (operators) before.push_back(fmt::format("{:.1f}", o.input_mtuples_per_s()));
  before.push_back(fmt::format("{:.2f}", o.input_gbps()));
  before.push_back(fmt::format("{:.2f}", o.memory_traffic_gbps()));
  before.insert(before.end(), after.begin(), after.end());
  return before;
}

std::string busiest_text(const sim::SimulationResult& r) {
  const int b = r.busiest_resource();
  return b < 0 ? "-" : fmt::format("{} {:.0f}%", r.resources[b].name, 100.0 * r.mean_utilisation[b]);
}

std::string bottleneck_text(const sim::SimulationResult& r) {
  const int b = r.bottleneck_resource();
  return b < 0 ? "none saturated" : fmt::format("{} {:.0f}% of the time", r.resources[b].name, 100.0 * r.saturated_fraction[b]);
}

std::string bound_text(const sim::SimulationResult& r) {
  const double total = r.bound.total_s();
  if (!(total > 0.0)) return "no thread worked";
  std::vector<std::pair<double, std::string>> parts{
      {r.bound.miss_buffers_s, "their miss buffers (outstanding misses over the loaded latency)"},
      {r.bound.core_s, "their cores (compute)"},
      {r.bound.cache_path_s, "their cores' cache path (loads and line transfers: the file's core_data_path)"},
      {r.bound.resource_s, "saturated resources"}};
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text;
  for (const auto& [seconds, what] : parts) {
    const double percent = 100.0 * seconds / total;
    if (percent < 0.05) continue;  // below what {:.1f} shows
    text += fmt::format("{}{} {:.1f}%", text.empty() ? "" : ", ", what, percent);
  }
  return "the working threads were held by " + text + " of their time";
}

namespace {

// A share of the run in whole percent; a share that rounds to 0 but is not 0 is "<1%" (a
// controller saturated for a moment, not "0% of the run").
std::string percent_text(double percent) {
  return percent > 0.0 && percent < 0.5 ? std::string("<1%") : fmt::format("{:.0f}%", percent);
}

}  // namespace

std::string bottleneck_line(const sim::SimulationResult& r) {
  const int b = r.bottleneck_resource();
  const std::string saturated =
      b < 0 ? "no resource saturated"
            : fmt::format("{} saturated {} of the run", r.resources[b].name, percent_text(100.0 * r.saturated_fraction[b]));
  return saturated + "; " + bound_text(r);
}

double headline_rate(const sim::WorkloadSpec& spec, const sim::SimulationResult& result) { return sim::headline_rate(spec, result.time_s); }


}  // namespace numatwin::cli
