#include "report/phases_text.hpp"

#include <fmt/format.h>

#include "report/text_table.hpp"

namespace numatwin::cli {
namespace {

// A share of the run below which a phase is a residue of the rates' precision, not work. The
// bandwidth model solves the rates to 1e-9 of a resource's capacity (model/bandwidth_model.hpp:
// max |f_r| < 1e-9), so threads that should end together (equal work at equal rates) end apart
// by about 1e-9 of the run's time, more at low utilisation (the error is on u, the rate's share
// of the capacity), and the threads that end first spend the difference `finished`: the hash
// join of issue 39 B showed 1.776e-12 thread-s of 23.42 (7.6e-14 of the run) as a row. 1e-6 is
// 1000 x the solver's tolerance, and below what the table shows (shares to 0.1 %, thread-s to 4
// digits): a phase with less than 1e-6 of the run's thread-seconds and of its bytes is not shown.
constexpr double kResidueShare = 1e-6;

// In the tables: beyond the residue.
bool beyond_residue(const sim::PhaseTime& p, const sim::SimulationResult& r) {
  return p.thread_s > kResidueShare * r.thread_seconds() || p.bytes > kResidueShare * r.bytes;
}

// In the JSON: every phase that took any time or moved any bytes, so that the phases' thread_s
// still add up to threads x time_s there.
bool used(const sim::PhaseTime& p) { return p.thread_s > 0.0 || p.bytes > 0.0; }

double share(const sim::SimulationResult& r, double seconds) {
  const double total = r.thread_seconds();
  return total > 0.0 ? seconds / total : 0.0;
}

}  // namespace

std::string phases_text(const sim::SimulationResult& r) {
  TextTable table({"phase", "thread-s", "share %", "wall s", "core-bound %", "memory-bound %", "in-core s", "cache s", "memory s",
                   "cache xfer s", "bound", "GB moved"});
  for (const sim::PhaseTime& p : r.phases) {
    if (!beyond_residue(p, r)) continue;
    const double rest = p.thread_s > 0.0 ? 100.0 / p.thread_s : 0.0;
    table.add_row({std::string(sim::phase_name(p.phase)), fmt::format("{:.4g}", p.thread_s), fmt::format("{:.1f}", 100.0 * share(r, p.thread_s)),
                   fmt::format("{:.4g}", p.wall_s), fmt::format("{:.1f}", rest * p.core_s), fmt::format("{:.1f}", rest * p.memory_s),
                   fmt::format("{:.4g}", p.core_s - p.cache_s), fmt::format("{:.4g}", p.cache_s), fmt::format("{:.4g}", p.memory_alone_s),
                   fmt::format("{:.4g}", p.cache_transfer_s), sim::phase_bound_name(sim::phase_bound(p)), fmt::format("{:.3g}", p.bytes / 1e9)});
  }
  table.add_row({"total", fmt::format("{:.4g}", r.thread_seconds()), "100.0", fmt::format("{:.4g}", r.time_s), "", "", "", "", "", "", "",
                 fmt::format("{:.3g}", r.bytes / 1e9)});
  std::string text =
      "phases (thread-s: summed over threads, threads x run time in all; wall s: the run's time shared by the working\n"
      "threads; core-bound / memory-bound: shares of the phase's thread-s the core worked / waited for memory beyond it;\n"
      "in-core, cache, memory s: thread-s the core executed, waited on cache hits, and the phase's memory transfers would\n"
      "take alone, hidden under core work or not (a scan's can exceed its thread-s: the table work it carries hid it);\n"
      "cache xfer s: the streams' lines through the cache levels that do not overlap with memory (ECM, the machine's\n"
      "core_data_path; 0 without one), hidden or not; bound: core, cache, memory or carried, whichever is largest;\n"
      "carried: the table work a scan carries, counted in its own row)\n" +
      table.render();
  if (!r.stages.empty()) {
    TextTable stages({"stage", "begin s", "end s", "seconds", "share of run %"});
    for (const sim::StageSpan& st : r.stages) {
      stages.add_row({st.name, fmt::format("{:.4g}", st.begin_s), fmt::format("{:.4g}", st.end_s),
                      fmt::format("{:.4g}", st.end_s - st.begin_s),
                      fmt::format("{:.1f}", r.time_s > 0.0 ? 100.0 * (st.end_s - st.begin_s) / r.time_s : 0.0)});
    }
    text += "stages (one after another, each ended by a barrier: the run's time split by stage)\n" + stages.render();
  }
  return text;
}

nlohmann::ordered_json stages_json(const sim::SimulationResult& r) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const sim::StageSpan& st : r.stages)
    out.push_back({{"stage", st.name}, {"begin_s", st.begin_s}, {"end_s", st.end_s}, {"seconds", st.end_s - st.begin_s}});
  return out;
}

nlohmann::ordered_json phases_json(const sim::SimulationResult& r) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const sim::PhaseTime& p : r.phases) {
    if (!used(p)) continue;
    out.push_back({{"phase", std::string(sim::phase_name(p.phase))},
                   {"thread_s", p.thread_s},
                   {"share", share(r, p.thread_s)},
                   {"core_s", p.core_s},
                   {"memory_s", p.memory_s},
                   {"cache_s", p.cache_s},
                   {"memory_alone_s", p.memory_alone_s},
                   {"cache_transfer_s", p.cache_transfer_s},
                   {"bound", sim::phase_bound(p) == sim::PhaseBound::kNone ? nlohmann::ordered_json(nullptr)
                                                                           : nlohmann::ordered_json(sim::phase_bound_name(sim::phase_bound(p)))},
                   {"wall_s", p.wall_s},
                   {"bytes", p.bytes}});
  }
  return out;
}

std::string phases_by_variant_text(const std::vector<std::string>& variants, const std::vector<sim::SimulationResult>& results) {
  std::vector<int> shown;
  for (int p = 0; p < sim::kPhaseCount; ++p) {
    bool any = false;
    for (const sim::SimulationResult& r : results) any = any || beyond_residue(r.phases.at(p), r);
    if (any) shown.push_back(p);
  }
  std::vector<std::string> header{"variant (share of thread-seconds, %)"};
  for (int p : shown) header.emplace_back(sim::phase_name(static_cast<sim::Phase>(p)));
  TextTable table(header);
  for (std::size_t v = 0; v < results.size() && v < variants.size(); ++v) {
    std::vector<std::string> row{variants[v]};
    for (int p : shown) row.push_back(fmt::format("{:.1f}", 100.0 * share(results[v], results[v].phases.at(p).thread_s)));
    table.add_row(row);
  }
  return table.render();
}

}  // namespace numatwin::cli
