#include "report/sweep_crossover.hpp"

#include <fmt/format.h>

namespace numatwin::cli {

std::string crossover_text(const SweepCrossover& c) {
  if (!c.found) return fmt::format("{} threads: no crossover: the sweep has no {} or no {}", c.threads, c.a, c.b);
  std::string out = fmt::format("{} threads, {} vs {}: ", c.threads, c.a, c.b);
  if (c.point) {
    out += fmt::format("{} is faster {} {:.3g} {}, {} {} (point prediction)", c.a, c.point->a_first ? "below" : "above", c.point->x,
                       c.x_name, c.b, c.point->a_first ? "above" : "below");
  } else {
    out += fmt::format("{} is faster at every size (point prediction)", c.a_faster_first ? c.a : c.b);
  }
  if (c.samples > 0) {
    out += fmt::format(";\n  over {} samples of the uncertain costs: they cross in {}", c.samples, c.crossing);
    if (c.x) out += fmt::format(" (median {:.3g} {}, 90 % {:.3g} - {:.3g})", c.x->median, c.x_name, c.x->low, c.x->high);
    out += fmt::format(", {} is faster at every size in {}, {} in {}", c.a, c.a_always, c.b, c.b_always);
  }
  return out;
}

nlohmann::ordered_json crossover_json(const SweepCrossover& c) {
  using Json = nlohmann::ordered_json;
  Json out{{"threads", c.threads}, {"a", c.a}, {"b", c.b}, {"x_name", c.x_name}, {"found", c.found}};
  if (c.point) {
    out["point"] = Json{{"x", c.point->x}, {"a_faster_below", c.point->a_first}};
  } else {
    out["point"] = nullptr;
    out["a_faster_everywhere"] = c.a_faster_first;
  }
  out["samples"] = c.samples;
  out["samples_crossing"] = c.crossing;
  out["samples_a_faster_everywhere"] = c.a_always;
  out["samples_b_faster_everywhere"] = c.b_always;
  if (c.x) out["x"] = Json{{"median", c.x->median}, {"p5", c.x->low}, {"p95", c.x->high}};
  return out;
}

}  // namespace numatwin::cli
