#include "numatwin/shuffle/schedule.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

namespace numatwin::shuffle {

std::string workload_name(Workload workload) {
  switch (workload) {
    case Workload::kShuffle:
      return "shuffle";
    case Workload::kMigration:
      return "migration";
    case Workload::kMigrationCopy:
      return "migration-copy";
  }
  return "shuffle";
}

bool parse_workload(const std::string& name, Workload& workload) {
  for (Workload w : {Workload::kShuffle, Workload::kMigration, Workload::kMigrationCopy}) {
    if (workload_name(w) == name) {
      workload = w;
      return true;
    }
  }
  return false;
}

std::vector<int> Schedule::order(int consumer) const {
  std::vector<int> out;
  out.reserve(steps.size());
  for (const std::vector<int>& step : steps) out.push_back(step.at(static_cast<std::size_t>(consumer)));
  return out;
}

bool Schedule::is_latin_square() const {
  const std::size_t n = steps.size();
  for (const std::vector<int>& step : steps) {
    std::vector<bool> seen(n, false);
    for (int p : step) {
      if (p < 0 || static_cast<std::size_t>(p) >= n || seen[static_cast<std::size_t>(p)]) return false;
      seen[static_cast<std::size_t>(p)] = true;
    }
  }
  return true;
}

Schedule Schedule::from_orders(const std::vector<std::vector<int>>& orders) {
  Schedule s;
  const std::size_t n = orders.size();
  s.steps.assign(n, std::vector<int>(n, 0));
  for (std::size_t c = 0; c < n; ++c) {
    if (orders[c].size() != n)
      throw std::invalid_argument("shuffle order of consumer " + std::to_string(c) + " has " + std::to_string(orders[c].size()) +
                                  " steps, expected " + std::to_string(n));
    for (std::size_t k = 0; k < n; ++k) s.steps[k][c] = orders[c][k];
  }
  return s;
}

Schedule Schedule::naive(int threads) {
  Schedule s;
  for (int k = 0; k < threads; ++k) s.steps.emplace_back(static_cast<std::size_t>(threads), k);
  return s;
}

Schedule Schedule::ring(int threads) {
  Schedule s;
  for (int k = 0; k < threads; ++k) {
    std::vector<int> step(static_cast<std::size_t>(threads));
    for (int c = 0; c < threads; ++c) step[static_cast<std::size_t>(c)] = (c + k) % threads;
    s.steps.push_back(std::move(step));
  }
  return s;
}

void check_schedule(const Schedule& schedule, int threads) {
  if (threads < 1) throw std::invalid_argument("a shuffle needs at least one thread, got " + std::to_string(threads));
  const auto n = static_cast<std::size_t>(threads);
  if (schedule.steps.size() != n)
    throw std::invalid_argument("shuffle schedule has " + std::to_string(schedule.steps.size()) + " steps, expected " +
                                std::to_string(n) + " (one per thread)");
  std::vector<std::vector<bool>> read(n, std::vector<bool>(n, false));  // read[c][p]
  for (std::size_t k = 0; k < n; ++k) {
    const std::vector<int>& step = schedule.steps[k];
    if (step.size() != n)
      throw std::invalid_argument("shuffle schedule step " + std::to_string(k) + " has " + std::to_string(step.size()) +
                                  " entries, expected " + std::to_string(n) + " (one per consumer)");
    for (std::size_t c = 0; c < n; ++c) {
      const int p = step[c];
      if (p < 0 || p >= threads)
        throw std::invalid_argument("shuffle schedule step " + std::to_string(k) + ", consumer " + std::to_string(c) + ": producer " +
                                    std::to_string(p) + " is not a thread 0.." + std::to_string(threads - 1));
      if (read[c][static_cast<std::size_t>(p)])
        throw std::invalid_argument("shuffle schedule step " + std::to_string(k) + ", consumer " + std::to_string(c) +
                                    ": reads producer " + std::to_string(p) + " a second time");
      read[c][static_cast<std::size_t>(p)] = true;
    }
  }
}

}  // namespace numatwin::shuffle
