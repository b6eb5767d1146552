#include "numatwin/validate/run/migration_cores.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace numatwin::validate {
namespace {

int usable_cores(const HostMap& host, std::size_t node) {
  return std::min(host.cores[node], static_cast<int>(host.node_cpus[node].size()));
}

}  // namespace

MigrationCores::MigrationCores(const HostMap& host, const std::vector<sim::PlacedThread>& threads) : host_(host) {
  on_core_.resize(host.node_cpus.size());
  for (std::size_t n = 0; n < host.node_cpus.size(); ++n) on_core_[n].assign(static_cast<std::size_t>(std::max(0, host.cores[n])), 0);
  for (const sim::PlacedThread& t : threads) {
    const auto node = static_cast<std::size_t>(t.node);
    if (t.node < 0 || node >= on_core_.size() || usable_cores(host, node) < 1)
      throw std::invalid_argument("thread on node " + std::to_string(t.node) + ", which has no usable CPU here");
    start_.push_back(Place{t.node, t.core - host.first_core[node]});
  }
  reset();
}

void MigrationCores::reset() {
  for (auto& cores : on_core_) std::fill(cores.begin(), cores.end(), 0);
  where_ = start_;
  for (const Place& p : where_) ++on_core_[static_cast<std::size_t>(p.node)][static_cast<std::size_t>(p.core)];
}

bool MigrationCores::can_host(model::NodeIndex node) const {
  return node >= 0 && static_cast<std::size_t>(node) < on_core_.size() && usable_cores(host_, static_cast<std::size_t>(node)) > 0;
}

int MigrationCores::move(int thread, model::NodeIndex node) {
  std::lock_guard lock(mutex_);
  Place& place = where_[static_cast<std::size_t>(thread)];
  if (place.node == node) return kStay;
  --on_core_[static_cast<std::size_t>(place.node)][static_cast<std::size_t>(place.core)];
  const auto n = static_cast<std::size_t>(node);
  std::vector<int>& cores = on_core_[n];
  const int usable = usable_cores(host_, n);
  int best = 0;
  for (int c = 1; c < usable; ++c)
    if (cores[static_cast<std::size_t>(c)] < cores[static_cast<std::size_t>(best)]) best = c;
  ++cores[static_cast<std::size_t>(best)];
  place = Place{node, best};
  return host_.node_cpus[n][static_cast<std::size_t>(best)];
}

}  // namespace numatwin::validate
