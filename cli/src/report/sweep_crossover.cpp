#include "report/sweep_crossover.hpp"

#include <fmt/format.h>

#include <set>

namespace numatwin::cli {

void SweepTimes::add(int threads, const std::string& label, double x, double point_s, const std::vector<double>& samples_s) {
  Series& s = series_[{threads, label}];
  s.xs.push_back(x);
  s.point.push_back(point_s);
  s.samples.push_back(samples_s);
}

std::vector<int> SweepTimes::thread_counts() const {
  std::set<int> counts;
  for (const auto& [key, series] : series_) counts.insert(key.first);
  return {counts.begin(), counts.end()};
}

SweepCrossover SweepTimes::crossover(int threads, const std::string& a, const std::string& b) const {
  SweepCrossover out;
  out.threads = threads;
  out.a = a;
  out.b = b;
  const auto ia = series_.find({threads, a});
  const auto ib = series_.find({threads, b});
  if (ia == series_.end() || ib == series_.end()) return out;
  const Series& sa = ia->second;
  const Series& sb = ib->second;
  out.found = true;
  out.point = sim::first_crossover(sa.xs, sa.point, sb.point);
  out.a_faster_first = sa.point.front() < sb.point.front();
  out.samples = sa.samples.empty() ? 0 : static_cast<int>(sa.samples.front().size());
  std::vector<double> xs;
  for (int k = 0; k < out.samples; ++k) {
    std::vector<double> ta;
    std::vector<double> tb;
    for (std::size_t i = 0; i < sa.xs.size(); ++i) {
      ta.push_back(sa.samples[i][k]);
      tb.push_back(sb.samples[i][k]);
    }
    if (const auto c = sim::first_crossover(sa.xs, ta, tb)) {
      ++out.crossing;
      xs.push_back(c->x);
    } else if (ta.front() < tb.front()) {
      ++out.a_always;
    } else {
      ++out.b_always;
    }
  }
  if (!xs.empty()) out.x = sim::interval_of(xs);
  return out;
}

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
