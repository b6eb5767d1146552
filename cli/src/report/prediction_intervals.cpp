#include "report/prediction_intervals.hpp"

#include <fmt/format.h>

namespace numatwin::cli {

std::string interval_text(const sim::Interval& interval, const char* unit, int digits) {
  return fmt::format("{:.{}g}{} [{:.{}g}, {:.{}g}]", interval.median, digits, unit, interval.low, digits, interval.high, digits);
}

std::string interval_cell(const sim::PointVersusInterval& p, int digits) {
  return interval_text(p.interval, "", digits) + (p.side == sim::PointSide::kInside ? "" : "*");
}

nlohmann::ordered_json point_json(const sim::PointVersusInterval& p, std::string_view what, std::string_view unit) {
  using Json = nlohmann::ordered_json;
  Json ends = Json::array();
  for (const sim::CostAtRangeEnd& c : p.at_range_end) {
    ends.push_back(Json{{"name", c.name}, {"value", c.value}, {"low", c.low}, {"high", c.high}, {"end", c.at_high ? "high" : "low"}});
  }
  Json out{{"value", p.point}, {"side", sim::point_side_name(p.side)}, {"costs_at_range_end", ends}};
  if (p.side != sim::PointSide::kInside) out["note"] = sim::point_outside_note(p, what, unit);
  return out;
}

std::string table_point_notes(const std::vector<std::pair<std::string, sim::PointVersusInterval>>& marked, std::string_view what,
                              std::string_view unit) {
  std::string out;
  for (const auto& [name, p] : marked) out += fmt::format("* {}: {}\n", name, sim::point_outside_note(p, what, unit));
  return out;
}

nlohmann::ordered_json uncertainty_json(const PredictionUncertainty& u, const sim::CostBasis& basis, const char* rate_name,
                                        double point_time_s, double point_rate) {
  using Json = nlohmann::ordered_json;
  Json costs = Json::array();
  for (const std::string& name : u.depends_on) {
    const sim::BasisCost& c = basis.at(name);
    costs.push_back(Json{{"name", name},
                         {"value", c.cost.value},
                         {"low", c.cost.low},
                         {"high", c.cost.high},
                         {"origin", c.given ? "given" : model::cost_origin_name(c.cost.origin)},
                         {"source", c.cost.source}});
  }
  Json out{{"basis", u.basis}, {"costs", costs}, {"samples", u.samples}};
  if (u.samples > 0) {
    out["time_s"] = Json{{"median", u.time_s.median}, {"p5", u.time_s.low}, {"p95", u.time_s.high}};
    out[rate_name] = Json{{"median", u.rate.median}, {"p5", u.rate.low}, {"p95", u.rate.high}};
    // The figures at the costs' own values against the samples' intervals (why one lies outside).
    const bool gbps = std::string_view(rate_name).find("gbps") != std::string_view::npos;
    out["point"] = Json{{"basis", "the prediction at the costs' own values (the headline figures), not a sample"},
                        {"time_s", point_json(sim::point_versus_interval(point_time_s, u.time_s, basis, u.uncertain), "time", " s")},
                        {rate_name, point_json(sim::point_versus_interval(point_rate, u.rate, basis, u.uncertain), "rate",
                                               gbps ? " GB/s" : " M tuples/s")}};
  } else {
    out["note"] = u.uncertain.empty() ? "no uncertain operator cost: the figures are points (the topology's bandwidths and "
                                        "latencies are taken as exact)"
                                      : "intervals off (--interval-samples 0)";
  }
  return out;
}

}  // namespace numatwin::cli
