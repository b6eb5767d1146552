// One dataset of a real kernel run placed the way sim/workload/memory_policy.hpp says, for real:
//   bind, preferred, interleave   mbind(2) on the Linux nodes of the policy's topology nodes
//                                 (interleave with no nodes: every memory node), then written;
//   first-touch:workers           no mbind; worker w writes its chunk w (partitioned, private) or
//                                 its slice w (shared), so its pages land on w's node;
//   first-touch:loader            no mbind; the loader (worker 0, placed like the model's thread
//                                 0) writes everything;
//   localalloc                    partitioned and private data as first-touch:workers, shared
//                                 data by the loader (the main thread allocates it).
//   weighted-interleave           no mbind; before anything is written, worker w places the
//                                 pages of its range by the weight vector of its node (the one
//                                 vector, or its node's), page by page as Linux lays out
//                                 MPOL_WEIGHTED_INTERLEAVE (memory_placement.hpp: place_weighted),
//                                 in huge pages when huge pages are on;
//   weighted-interleave, by kernel mbind(MPOL_WEIGHTED_INTERLEAVE) on the Linux nodes of the one
//                                 vector (the caller sets the sysfs weights for the run:
//                                 kernel_interleave_weights.hpp), then written by the workers;
//                                 per-node vectors are an error (Linux has one vector).
// Chunks are [w * n / W, (w + 1) * n / W) of the dataset's elements, as in the simulator.
// The observed placement (pages per Linux node, by move_pages) is recorded after initialising.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/kernels/kernel_support.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "numatwin/validate/host/thread_team.hpp"

namespace numatwin::validate {

class PlacedDataset {
 public:
  // Reserves `elements` x `element_bytes` bytes (page-rounded) under the policy. Throws
  // std::invalid_argument when the policy names a node this machine lacks, std::runtime_error
  // when mmap or mbind fail. `huge_pages`: madvise(MADV_HUGEPAGE), else MADV_NOHUGEPAGE.
  PlacedDataset(std::string name, std::size_t elements, std::size_t element_bytes, sim::DatasetKind kind,
                const sim::MemoryPolicy& policy, const HostMap& host, bool huge_pages, WeightedInterleaveBy weighted_by);

  // Writes the data for the first time: init(worker, first_element, end_element) on the workers
  // that the policy makes the first toucher of each range (see the table above). Every element
  // must be written by init. Records the observed page placement afterwards.
  void initialise(ThreadTeam& team, const std::function<void(int worker, std::size_t begin, std::size_t end)>& init);
  // The same with worker w's range [bounds[w], bounds[w + 1]) instead of the equal chunk w
  // (bounds: workers + 1 ascending element offsets from 0 to elements()), for data whose
  // workers load unequal shares (the subarray filter's chunk groups).
  void initialise(ThreadTeam& team, const std::function<void(int worker, std::size_t begin, std::size_t end)>& init,
                  const std::vector<std::size_t>& bounds);

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] std::byte* data() const { return memory_->data(); }
  template <typename T>
  [[nodiscard]] T* as() const { return reinterpret_cast<T*>(memory_->data()); }
  [[nodiscard]] std::size_t elements() const { return elements_; }
  [[nodiscard]] std::size_t bytes() const { return elements_ * element_bytes_; }
  [[nodiscard]] sim::DatasetKind kind() const { return kind_; }
  // Pages per Linux node after initialise() (a fresh move_pages query: observe()).
  [[nodiscard]] const PagePlacement& placement() const { return placement_; }
  const PagePlacement& observe();

  // Worker w's chunk of W equal chunks: [begin, end) in elements.
  [[nodiscard]] static std::pair<std::size_t, std::size_t> chunk(std::size_t elements, int worker, int workers);

 private:
  std::string name_;
  std::size_t elements_;
  std::size_t element_bytes_;
  sim::DatasetKind kind_;
  sim::MemoryPolicy policy_;
  std::unique_ptr<NodeMemory> memory_;
  PagePlacement placement_;
  // weighted-interleave placed page by page only: the host's nodes and the allocation unit.
  HostMap weighted_host_;
  std::size_t weighted_unit_bytes_ = 0;

  [[nodiscard]] const sim::InterleaveWeights& weights_of_worker(const ThreadTeam& team, int worker) const;
  void place_weighted_ranges(ThreadTeam& team, const std::vector<std::size_t>& bounds);
};

}  // namespace numatwin::validate
