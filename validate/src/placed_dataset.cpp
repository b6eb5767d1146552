#include "numatwin/validate/placed_dataset.hpp"

#include <algorithm>
#include <stdexcept>

namespace numatwin::validate {

std::pair<std::size_t, std::size_t> PlacedDataset::chunk(std::size_t elements, int worker, int workers) {
  const auto w = static_cast<std::size_t>(worker);
  const auto n = static_cast<std::size_t>(workers);
  return {elements * w / n, elements * (w + 1) / n};
}

PlacedDataset::PlacedDataset(std::string name, std::size_t elements, std::size_t element_bytes, sim::DatasetKind kind,
                             const sim::MemoryPolicy& policy, const HostMap& host, bool huge_pages)
    : name_(std::move(name)), elements_(elements), element_bytes_(element_bytes), kind_(kind), policy_(policy) {
  if (elements == 0 || element_bytes == 0) throw std::invalid_argument("dataset \"" + name_ + "\" is empty");
  const std::size_t bytes = elements * element_bytes;
  switch (policy.kind) {
    case sim::MemoryPolicyKind::kBind:
      memory_ = std::make_unique<NodeMemory>(bytes, MemoryPolicyKind::kBind, host.os_nodes(policy.nodes), huge_pages);
      break;
    case sim::MemoryPolicyKind::kPreferred:
      if (policy.nodes.empty()) throw std::invalid_argument("preferred needs a node");
      memory_ = std::make_unique<NodeMemory>(bytes, MemoryPolicyKind::kPreferred, host.os_nodes({policy.nodes.front()}), huge_pages);
      break;
    case sim::MemoryPolicyKind::kInterleave:
      memory_ = std::make_unique<NodeMemory>(bytes, MemoryPolicyKind::kInterleave,
                                             policy.nodes.empty() ? host.memory_os_nodes : host.os_nodes(policy.nodes), huge_pages);
      break;
    case sim::MemoryPolicyKind::kFirstTouch:
    case sim::MemoryPolicyKind::kLocalAlloc:
      memory_ = std::make_unique<NodeMemory>(bytes, MemoryPolicyKind::kLocal, std::vector<int>{}, huge_pages);
      break;
    case sim::MemoryPolicyKind::kWeightedInterleave:
      // The kernel's weights are system-wide sysfs files (one vector for every process), so a
      // real run would have to set and restore them: not done yet (issue 14, item 3).
      throw std::invalid_argument("dataset \"" + name_ +
                                  "\": weighted-interleave is predicted only; the validator does not run it for real yet "
                                  "(it would have to set and restore /sys/kernel/mm/mempolicy/weighted_interleave/nodeN)");
  }
}

void PlacedDataset::initialise(ThreadTeam& team, const std::function<void(int, std::size_t, std::size_t)>& init) {
  std::vector<std::size_t> bounds;
  for (int w = 0; w <= team.size(); ++w) bounds.push_back(w < team.size() ? chunk(elements_, w, team.size()).first : elements_);
  initialise(team, init, bounds);
}

void PlacedDataset::initialise(ThreadTeam& team, const std::function<void(int, std::size_t, std::size_t)>& init,
                               const std::vector<std::size_t>& bounds) {
  if (bounds.size() != static_cast<std::size_t>(team.size()) + 1 || bounds.front() != 0 || bounds.back() != elements_ ||
      !std::is_sorted(bounds.begin(), bounds.end())) {
    throw std::invalid_argument("dataset \"" + name_ + "\": worker ranges must be " + std::to_string(team.size() + 1) +
                                " ascending offsets from 0 to " + std::to_string(elements_));
  }
  const bool by_loader =
      (policy_.kind == sim::MemoryPolicyKind::kFirstTouch && policy_.init == sim::InitThreads::kLoader) ||
      (policy_.kind == sim::MemoryPolicyKind::kLocalAlloc && kind_ == sim::DatasetKind::kShared);
  team.run([&](int w) {
    if (by_loader) {
      if (w == 0) init(0, 0, elements_);
      return;
    }
    const std::size_t begin = bounds[static_cast<std::size_t>(w)];
    const std::size_t end = bounds[static_cast<std::size_t>(w) + 1];
    if (begin < end) init(w, begin, end);
  });
  observe();
}

const PagePlacement& PlacedDataset::observe() {
  placement_ = page_placement(memory_->data(), memory_->bytes());
  return placement_;
}

}  // namespace numatwin::validate
