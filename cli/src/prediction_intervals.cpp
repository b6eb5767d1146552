#include "prediction_intervals.hpp"

#include <fmt/format.h>

namespace numatwin::cli {

std::string interval_text(const sim::Interval& interval, const char* unit, int digits) {
  return fmt::format("{:.{}g}{} [{:.{}g}, {:.{}g}]", interval.median, digits, unit, interval.low, digits, interval.high, digits);
}

nlohmann::ordered_json uncertainty_json(const PredictionUncertainty& u, const sim::CostBasis& basis, const char* rate_name) {
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
  } else {
    out["note"] = u.uncertain.empty() ? "no uncertain operator cost: the figures are points (the topology's bandwidths and "
                                        "latencies are taken as exact)"
                                      : "intervals off (--interval-samples 0)";
  }
  return out;
}

}  // namespace numatwin::cli
