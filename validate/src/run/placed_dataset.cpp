#include "numatwin/validate/run/placed_dataset.hpp"

#include <algorithm>
#include <stdexcept>

namespace numatwin::validate {

std::pair<std::size_t, std::size_t> PlacedDataset::chunk(std::size_t elements, int worker, int workers) {
  return worker_chunk(elements, worker, workers);
}

PlacedDataset::PlacedDataset(std::string name, std::size_t elements, std::size_t element_bytes, sim::DatasetKind kind,
                             const sim::MemoryPolicy& policy, const HostMap& host, bool huge_pages,
                             WeightedInterleaveBy weighted_by)
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
      if (weighted_by == WeightedInterleaveBy::kKernel) {
        if (!policy.by_node.empty()) {
          throw std::invalid_argument("dataset \"" + name_ + "\": the kernel's weighted interleave has one system-wide weight "
                                      "vector, so per-node vectors can only be placed page by page (--weighted-interleave-by pages)");
        }
        memory_ = std::make_unique<NodeMemory>(bytes, MemoryPolicyKind::kWeightedInterleave, host.os_nodes(policy.global.nodes),
                                               huge_pages);
        break;
      }
      // No kernel policy: initialise() has every worker place its range's pages by its node's
      // weights before anything is written (place_weighted).
      memory_ = std::make_unique<NodeMemory>(bytes, MemoryPolicyKind::kLocal, std::vector<int>{}, huge_pages);
      weighted_host_ = host;
      weighted_unit_bytes_ = huge_pages ? kHugePageBytes : page_bytes();
      break;
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
  if (policy_.kind == sim::MemoryPolicyKind::kWeightedInterleave && weighted_unit_bytes_ > 0) place_weighted_ranges(team, bounds);
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

const sim::InterleaveWeights& PlacedDataset::weights_of_worker(const ThreadTeam& team, int worker) const {
  if (policy_.by_node.empty()) return policy_.global;
  const int cpu = team.pinned_cpus()[static_cast<std::size_t>(worker)];
  for (std::size_t node = 0; node < weighted_host_.node_cpus.size(); ++node) {
    const std::vector<int>& cpus = weighted_host_.node_cpus[node];
    if (cpu == kUnpinned || std::find(cpus.begin(), cpus.end(), cpu) == cpus.end()) continue;
    for (const sim::NodeWeights& w : policy_.by_node) {
      if (w.cpu_node == static_cast<model::NodeIndex>(node)) return w.weights;
    }
    throw std::invalid_argument("dataset \"" + name_ + "\": weighted-interleave has no weight vector for worker " +
                                std::to_string(worker) + "'s node (topology node " + std::to_string(node) +
                                "); a per-node policy needs one for every node a worker runs on");
  }
  throw std::invalid_argument("dataset \"" + name_ + "\": worker " + std::to_string(worker) +
                              " is not pinned to a CPU of a known node, so no per-node weight vector applies");
}

void PlacedDataset::place_weighted_ranges(ThreadTeam& team, const std::vector<std::size_t>& bounds) {
  std::vector<const sim::InterleaveWeights*> weights(static_cast<std::size_t>(team.size()));
  for (int w = 0; w < team.size(); ++w) weights[static_cast<std::size_t>(w)] = &weights_of_worker(team, w);
  team.run([&](int w) {
    const sim::InterleaveWeights& v = *weights[static_cast<std::size_t>(w)];
    place_weighted(memory_->data(), memory_->bytes(), bounds[static_cast<std::size_t>(w)] * element_bytes_,
                   w + 1 < team.size() ? bounds[static_cast<std::size_t>(w) + 1] * element_bytes_ : memory_->bytes(),
                   weighted_host_.os_nodes(v.nodes), v.weights, weighted_unit_bytes_);
  });
}

const PagePlacement& PlacedDataset::observe() {
  placement_ = page_placement(memory_->data(), memory_->bytes());
  return placement_;
}

}  // namespace numatwin::validate
