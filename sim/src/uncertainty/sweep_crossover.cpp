#include "numatwin/sim/uncertainty/sweep_crossover.hpp"

#include <set>

namespace numatwin::sim {

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
  out.point = first_crossover(sa.xs, sa.point, sb.point);
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
    if (const auto c = first_crossover(sa.xs, ta, tb)) {
      ++out.crossing;
      xs.push_back(c->x);
    } else if (ta.front() < tb.front()) {
      ++out.a_always;
    } else {
      ++out.b_always;
    }
  }
  if (!xs.empty()) out.x = interval_of(xs);
  return out;
}

}  // namespace numatwin::sim
