#include "numatwin/validate/host/memory_placement.hpp"

#include <hwloc.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <stdexcept>

// <numaif.h> of libnuma before 2.0.18 does not name it (linux/mempolicy.h, Linux 6.9).
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif

namespace numatwin::validate {
namespace {

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

std::size_t page_bytes() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

NodeMemory::NodeMemory(std::size_t bytes, MemoryPolicyKind policy, const std::vector<int>& nodes, bool huge_pages) {
  if (nodes.empty() && policy != MemoryPolicyKind::kLocal) throw std::invalid_argument("NodeMemory: no node given");
  const std::size_t page = page_bytes();
  bytes_ = (bytes + page - 1) / page * page;
  // With huge pages the mapping starts on a huge-page boundary: the datasets lay their threads'
  // ranges out in whole huge pages (shuffle_run.cpp: dataset_page_bytes), and a huge page that
  // straddled two ranges would go, whole, to whichever thread touched it first (seen in the
  // 8-node emulated guest: one producer's buffer on its neighbour's node). Over-map by one huge
  // page and unmap the unaligned head and the tail.
  const std::size_t align = huge_pages ? kHugePageBytes : page;
  void* raw = mmap(nullptr, bytes_ + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::runtime_error(errno_text("mmap of " + std::to_string(bytes_ + align) + " bytes"));
  const auto raw_address = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t start = (raw_address + align - 1) / align * align;
  if (start > raw_address) munmap(raw, start - raw_address);
  const std::size_t tail = raw_address + bytes_ + align - (start + bytes_);
  if (tail > 0) munmap(reinterpret_cast<void*>(start + bytes_), tail);
  void* p = reinterpret_cast<void*>(start);
  data_ = static_cast<std::byte*>(p);
  madvise(p, bytes_, huge_pages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  if (policy == MemoryPolicyKind::kLocal) return;
  const int max_node = numa_max_possible_node();
  std::vector<unsigned long> mask(static_cast<std::size_t>(max_node / (8 * static_cast<int>(sizeof(unsigned long))) + 1), 0UL);
  for (int node : nodes) {
    if (node < 0 || node > max_node) {
      munmap(p, bytes_);
      throw std::invalid_argument("NodeMemory: node " + std::to_string(node) + " does not exist");
    }
    const auto bits = 8 * sizeof(unsigned long);
    mask[static_cast<std::size_t>(node) / bits] |= 1UL << (static_cast<std::size_t>(node) % bits);
  }
  int mode = MPOL_BIND;
  if (policy == MemoryPolicyKind::kPreferred) mode = MPOL_PREFERRED;
  if (policy == MemoryPolicyKind::kInterleave) mode = MPOL_INTERLEAVE;
  if (policy == MemoryPolicyKind::kWeightedInterleave) mode = MPOL_WEIGHTED_INTERLEAVE;
  if (mbind(p, bytes_, mode, mask.data(), static_cast<unsigned long>(max_node + 2), 0) != 0) {
    const int error = errno;
    std::string message = "mbind to node(s) of " + std::to_string(bytes_) + " bytes: " + std::strerror(error);
    if (policy == MemoryPolicyKind::kWeightedInterleave) {
      message = "mbind(MPOL_WEIGHTED_INTERLEAVE) of " + std::to_string(bytes_) + " bytes: " + std::strerror(error) +
                (error == EINVAL ? " (kernels before Linux 6.9 have no weighted interleave)" : "");
    }
    munmap(p, bytes_);
    throw std::runtime_error(message);
  }
}

NodeMemory::~NodeMemory() {
  if (data_ != nullptr) munmap(data_, bytes_);
}

void NodeMemory::touch(unsigned char value) {
  const std::size_t page = page_bytes();
  for (std::size_t at = 0; at < bytes_; at += page) std::memset(data_ + at, value, page);
}

double PagePlacement::fraction_on(int node) const {
  if (pages == 0) return 0.0;
  const auto it = pages_per_node.find(node);
  return it == pages_per_node.end() ? 0.0 : static_cast<double>(it->second) / static_cast<double>(pages);
}

std::string PagePlacement::text() const {
  std::string out;
  for (const auto& [node, count] : pages_per_node) {
    const double percent = 100.0 * static_cast<double>(count) / static_cast<double>(std::max<std::size_t>(1, pages));
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%sn%d: %.4g%%", out.empty() ? "" : ", ", node, percent);
    out += buffer;
  }
  if (pages_not_present > 0) out += (out.empty() ? "" : ", ") + std::to_string(pages_not_present) + " pages not present";
  if (pages_in_error > 0) out += (out.empty() ? "" : ", ") + std::to_string(pages_in_error) + " pages in error";
  return out.empty() ? "no pages" : out;
}

std::vector<int> page_nodes(const void* data, std::size_t bytes) {
  const std::size_t page = page_bytes();
  const std::size_t count = (bytes + page - 1) / page;
  std::vector<int> status(count, 0);
  constexpr std::size_t kChunk = 1 << 16;
  std::vector<void*> addresses;
  for (std::size_t first = 0; first < count; first += kChunk) {
    const std::size_t n = std::min(kChunk, count - first);
    addresses.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      addresses[i] = const_cast<std::byte*>(static_cast<const std::byte*>(data)) + (first + i) * page;
    }
    if (move_pages(0, static_cast<unsigned long>(n), addresses.data(), nullptr, status.data() + first, 0) != 0) {
      throw std::runtime_error(errno_text("move_pages (query)"));
    }
  }
  return status;
}

PagePlacement page_placement(const void* data, std::size_t bytes) {
  PagePlacement placement;
  for (int status : page_nodes(data, bytes)) {
    ++placement.pages;
    if (status >= 0) {
      ++placement.pages_per_node[status];
    } else if (status == -ENOENT) {
      ++placement.pages_not_present;
    } else {
      ++placement.pages_in_error;
    }
  }
  return placement;
}

std::size_t move_pages_to(void* data, std::size_t bytes, int node) {
  const std::size_t page = page_bytes();
  const std::size_t count = (bytes + page - 1) / page;
  std::vector<void*> addresses(count);
  std::vector<int> targets(count, node);
  std::vector<int> status(count, 0);
  for (std::size_t i = 0; i < count; ++i) addresses[i] = static_cast<std::byte*>(data) + i * page;
  if (move_pages(0, static_cast<unsigned long>(count), addresses.data(), targets.data(), status.data(), MPOL_MF_MOVE) < 0) {
    throw std::runtime_error(errno_text("move_pages to node " + std::to_string(node)));
  }
  return static_cast<std::size_t>(std::count(status.begin(), status.end(), node));
}

std::size_t weighted_interleave_slot(std::size_t unit, const std::vector<int>& weights) {
  std::size_t total = 0;
  for (int w : weights) total += static_cast<std::size_t>(w);
  std::size_t position = unit % total;
  std::size_t i = 0;
  while (position >= static_cast<std::size_t>(weights[i])) position -= static_cast<std::size_t>(weights[i++]);
  return i;
}

std::size_t place_weighted(std::byte* data, std::size_t bytes, std::size_t first_byte, std::size_t end_byte,
                           const std::vector<int>& os_nodes, const std::vector<int>& weights, std::size_t unit_bytes) {
  if (os_nodes.empty() || os_nodes.size() != weights.size()) {
    throw std::invalid_argument("weighted interleave: " + std::to_string(os_nodes.size()) + " nodes and " +
                                std::to_string(weights.size()) + " weights (one weight per node, at least one)");
  }
  std::size_t total = 0;
  for (int w : weights) {
    if (w < 1 || w > 255) throw std::invalid_argument("weighted interleave: weight " + std::to_string(w) + " is not in 1..255");
    total += static_cast<std::size_t>(w);
  }
  const std::size_t page = page_bytes();
  if (unit_bytes < page || unit_bytes % page != 0) throw std::invalid_argument("weighted interleave: unit is not whole pages");
  const int max_node = numa_max_possible_node();
  const auto bits = 8 * sizeof(unsigned long);
  std::vector<unsigned long> mask(static_cast<std::size_t>(max_node) / bits + 1, 0UL);
  // Restores the default policy however the placement ends.
  struct DefaultPolicyAtExit {
    ~DefaultPolicyAtExit() { set_mempolicy(MPOL_DEFAULT, nullptr, 0); }
  } restore;
  end_byte = std::min(end_byte, bytes);
  std::size_t placed = 0;
  int bound = -1;
  for (std::size_t unit = (first_byte + unit_bytes - 1) / unit_bytes; unit * unit_bytes < end_byte; ++unit) {
    const int node = os_nodes[weighted_interleave_slot(unit, weights)];
    if (node != bound) {
      if (node < 0 || node > max_node) throw std::invalid_argument("weighted interleave: node " + std::to_string(node) + " does not exist");
      std::fill(mask.begin(), mask.end(), 0UL);
      mask[static_cast<std::size_t>(node) / bits] |= 1UL << (static_cast<std::size_t>(node) % bits);
      if (set_mempolicy(MPOL_BIND, mask.data(), static_cast<unsigned long>(max_node + 2)) != 0) {
        throw std::runtime_error(errno_text("set_mempolicy(MPOL_BIND) to node " + std::to_string(node)));
      }
      bound = node;
    }
    const std::size_t unit_end = std::min(bytes, (unit + 1) * unit_bytes);
    for (std::size_t at = unit * unit_bytes; at < unit_end; at += page) data[at] = std::byte{0};
    ++placed;
  }
  return placed;
}

int node_of_cpu(int cpu) { return cpu < 0 ? -1 : numa_node_of_cpu(cpu); }
int current_cpu() { return sched_getcpu(); }

struct ThreadPinner::Impl {
  hwloc_topology_t topology = nullptr;
  ~Impl() {
    if (topology != nullptr) hwloc_topology_destroy(topology);
  }
};

ThreadPinner::ThreadPinner() : impl_(std::make_unique<Impl>()) {
  if (hwloc_topology_init(&impl_->topology) != 0 || hwloc_topology_load(impl_->topology) != 0) {
    throw std::runtime_error("hwloc: cannot load this machine's topology");
  }
}

ThreadPinner::~ThreadPinner() = default;

std::vector<int> ThreadPinner::node_cpus(int node_os_index) const {
  hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(impl_->topology, static_cast<unsigned>(node_os_index));
  if (node == nullptr) return {};
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(impl_->topology);
  std::vector<std::vector<int>> per_core;
  const int cores = hwloc_get_nbobjs_inside_cpuset_by_type(impl_->topology, node->cpuset, HWLOC_OBJ_CORE);
  for (int c = 0; c < cores; ++c) {
    hwloc_obj_t core = hwloc_get_obj_inside_cpuset_by_type(impl_->topology, node->cpuset, HWLOC_OBJ_CORE, static_cast<unsigned>(c));
    std::vector<int> pus;
    unsigned index = 0;
    hwloc_bitmap_foreach_begin(index, core->cpuset) {
      if (hwloc_bitmap_isset(allowed, index)) pus.push_back(static_cast<int>(index));
    }
    hwloc_bitmap_foreach_end();
    if (!pus.empty()) per_core.push_back(pus);
  }
  std::vector<int> cpus;
  for (std::size_t round = 0;; ++round) {
    bool any = false;
    for (const auto& pus : per_core) {
      if (round < pus.size()) {
        cpus.push_back(pus[round]);
        any = true;
      }
    }
    if (!any) break;
  }
  return cpus;
}

void ThreadPinner::pin_current_thread(int cpu) const {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  hwloc_bitmap_only(set, static_cast<unsigned>(cpu));
  const int rc = hwloc_set_cpubind(impl_->topology, set, HWLOC_CPUBIND_THREAD);
  const int error = errno;
  hwloc_bitmap_free(set);
  if (rc != 0) throw std::runtime_error("hwloc: cannot pin a thread to CPU " + std::to_string(cpu) + ": " + std::strerror(error));
  sched_yield();
}

}  // namespace numatwin::validate
