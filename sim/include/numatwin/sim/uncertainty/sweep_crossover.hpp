// The crossovers a sweep reports, with their uncertainty: per thread count, where variant A stops
// (or starts) being faster than variant B as the sweep's size grows (crossover.hpp), for the
// point prediction and for each sample of the uncertain costs (prediction_interval.hpp): how
// many samples cross, and the median and 5th / 95th percentiles of where they do. The text and
// JSON are the front-ends' (cli/src/report/sweep_crossover.hpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "numatwin/sim/uncertainty/crossover.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"

namespace numatwin::sim {

struct SweepCrossover {
  int threads = 0;
  std::string a;
  std::string b;
  std::string x_name = "size";  // what the sweep's size counts
  bool found = false;                  // both variants were in the sweep
  std::optional<Crossover> point;  // of the point predictions
  bool a_faster_first = false;         // at the smallest size (point prediction)
  int samples = 0;
  int crossing = 0;   // samples with a crossover in range
  int a_always = 0;   // samples in which A is faster at every size
  int b_always = 0;
  std::optional<Interval> x;  // median and 5th / 95th percentiles of the crossing samples' x
};

class SweepTimes {
 public:
  // One row: the variant `label` at `threads` and size `x`, its point time and its samples' times
  // (empty, or the same count for every row).
  void add(int threads, const std::string& label, double x, double point_s, const std::vector<double>& samples_s);
  [[nodiscard]] std::vector<int> thread_counts() const;
  [[nodiscard]] SweepCrossover crossover(int threads, const std::string& a, const std::string& b) const;

 private:
  struct Series {
    std::vector<double> xs;
    std::vector<double> point;
    std::vector<std::vector<double>> samples;  // [size][sample]
  };
  std::map<std::pair<int, std::string>, Series> series_;
};

}  // namespace numatwin::sim
