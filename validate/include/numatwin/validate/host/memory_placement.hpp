// Placing memory and threads for real, and observing where they ended up: anonymous memory
// under a libnuma/mbind policy (bind, preferred, interleave), the node of every page from
// move_pages(2) in query mode, page migration, and threads pinned to one hardware thread
// with hwloc.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace numatwin::validate {

// kLocal: no mbind, the process's default policy (first touch on the toucher's node).
// kWeightedInterleave: the kernel's MPOL_WEIGHTED_INTERLEAVE over the nodes (Linux 6.9 and later),
// by the system-wide sysfs weights (kernel_interleave_weights.hpp); the mbind of a kernel without
// it fails with EINVAL, which is reported as such.
enum class MemoryPolicyKind { kBind, kPreferred, kInterleave, kLocal, kWeightedInterleave };

// How a weighted-interleave dataset gets its layout for real: kPages, every worker places its
// range's pages one by one in the kernel's layout (place_weighted; any kernel, per-node vectors
// too); kKernel, mbind(MPOL_WEIGHTED_INTERLEAVE) with the sysfs weights set for the run
// (kernel_interleave_weights.hpp; Linux 6.9 and later, one system-wide vector).
enum class WeightedInterleaveBy { kPages, kKernel };

// Anonymous pages under a memory policy, unmapped on destruction. Pages get their node when
// first touched (`touch`).
class NodeMemory {
 public:
  // Throws std::runtime_error (with strerror) when mmap or mbind fails, std::invalid_argument
  // for an empty node list (except kLocal, which takes none). `huge_pages` asks for transparent huge pages (madvise).
  NodeMemory(std::size_t bytes, MemoryPolicyKind policy, const std::vector<int>& nodes, bool huge_pages);
  ~NodeMemory();
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;

  [[nodiscard]] std::byte* data() const { return data_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  // Writes every page (from the calling thread).
  void touch(unsigned char value = 1);

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

struct PagePlacement {
  std::size_t pages = 0;
  std::map<int, std::size_t> pages_per_node;  // node -> pages
  std::size_t pages_not_present = 0;         // never touched or swapped out (-ENOENT)
  std::size_t pages_in_error = 0;            // other negative status
  [[nodiscard]] double fraction_on(int node) const;
  [[nodiscard]] std::string text() const;  // "n0: 100%" or "n0: 50%, n1: 50%"
};

[[nodiscard]] std::size_t page_bytes();
// The transparent huge page size the datasets lay their ranges out in (x86-64: 2 MiB); a
// NodeMemory with huge pages starts on such a boundary.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
// The node of each base page of [data, data + bytes), by move_pages(2) with no target nodes;
// -errno for a page that has none. Throws std::runtime_error when the call fails.
std::vector<int> page_nodes(const void* data, std::size_t bytes);
PagePlacement page_placement(const void* data, std::size_t bytes);
// Moves every page of the range to `node` with move_pages(2); returns how many pages report
// `node` afterwards. Throws std::runtime_error when the call fails as a whole.
std::size_t move_pages_to(void* data, std::size_t bytes, int node);

// Weighted interleave, placed page by page by the calling thread: the allocation units
// (`unit_bytes`: base pages, or huge pages) of [data, data + bytes) are numbered from the
// region's start, and unit u goes to os_nodes[i] where u mod (sum of weights) falls in node i's
// run (weights[0] units on os_nodes[0], then weights[1] on os_nodes[1], ...): the layout Linux's
// MPOL_WEIGHTED_INTERLEAVE gives a region (mm/mempolicy.c, weighted_interleave_nid), without
// the kernel policy, whose weights are one system-wide sysfs vector and which kernels before
// 6.9 lack. Only units whose first byte lies in [first_byte, end_byte) are placed, so workers
// with adjacent ranges place each unit once. Each run is faulted in under a temporary
// MPOL_BIND of the calling thread (every base page written once); the thread's policy is
// MPOL_DEFAULT afterwards. Returns the units placed. Throws std::invalid_argument for
// mismatched or empty lists or a weight outside 1..255, std::runtime_error when the kernel
// refuses the policy.
// Which node of the weight list allocation unit `unit` goes to: the i with
// w_0 + ... + w_{i-1} <= unit mod (w_0 + ... + w_{n-1}) < w_0 + ... + w_i. Weights must be >= 1.
[[nodiscard]] std::size_t weighted_interleave_slot(std::size_t unit, const std::vector<int>& weights);
std::size_t place_weighted(std::byte* data, std::size_t bytes, std::size_t first_byte, std::size_t end_byte,
                           const std::vector<int>& os_nodes, const std::vector<int>& weights, std::size_t unit_bytes);

// The NUMA node of a CPU (libnuma), -1 when unknown.
int node_of_cpu(int cpu);
// The CPU this thread runs on now (sched_getcpu), -1 when unknown.
int current_cpu();

// Pins threads with hwloc. CPUs of a node are listed in the model's order: the first hardware
// thread of every core, then the second of every core, ... (numatwin's thread placement).
class ThreadPinner {
 public:
  // Throws std::runtime_error when hwloc cannot load this machine.
  ThreadPinner();
  ~ThreadPinner();
  ThreadPinner(const ThreadPinner&) = delete;
  ThreadPinner& operator=(const ThreadPinner&) = delete;

  // OS CPU numbers of `node_os_index` that this process may use, in placement order.
  [[nodiscard]] std::vector<int> node_cpus(int node_os_index) const;
  // Binds the calling thread to one CPU. Throws std::runtime_error with the reason.
  void pin_current_thread(int cpu) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace numatwin::validate
