#include "numatwin/shuffle/node_buffers.hpp"

#include <numa.h>
#include <sched.h>
#include <sys/mman.h>

#include <new>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace numatwin::shuffle {

NodeBuffers::NodeBuffers(Runner& runner, std::size_t piece_bytes, const Producer& produce) {
  if (piece_bytes == 0) throw std::invalid_argument("shuffle pieces need at least one byte");
  const int n = runner.threads();
  const auto un = static_cast<std::size_t>(n);
  layout_.piece_bytes = piece_bytes;
  layout_.stride = (piece_bytes + 63) / 64 * 64;
  buffer_bytes_ = layout_.stride * un;
  numa_ = numa_available() >= 0;
  owned_.assign(un, nullptr);
  nodes_.assign(un, -1);
  try {
    for (std::size_t p = 0; p < un; ++p) {
      void* memory = mmap(nullptr, buffer_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (memory == MAP_FAILED) throw std::bad_alloc();
      owned_[p] = static_cast<std::byte*>(memory);
      const int cpu = runner.cpus()[p];
      if (numa_ && cpu != kUnpinned) {
        const int node = numa_node_of_cpu(cpu);
        if (node < 0) throw std::runtime_error("producer " + std::to_string(p) + ": CPU " + std::to_string(cpu) + " has no NUMA node");
        numa_tonode_memory(memory, buffer_bytes_, node);  // bind before the first touch
        nodes_[p] = node;
      }
    }
    std::vector<int> filled_on(un, -1);  // the CPU each producer wrote its buffer on
    runner.on_each_thread([&](int p) {
      const auto up = static_cast<std::size_t>(p);
      filled_on[up] = sched_getcpu();
      std::byte* buffer = owned_[up];
      for (int c = 0; c < n; ++c) produce(p, c, buffer + static_cast<std::size_t>(c) * layout_.stride, piece_bytes);
    });
    // Unpinned producers: first touch decided. (libnuma's CPU-to-node cache is filled lazily and
    // is not thread-safe, so it is asked here, on one thread.)
    for (std::size_t p = 0; p < un; ++p)
      if (numa_ && nodes_[p] < 0 && filled_on[p] >= 0) nodes_[p] = numa_node_of_cpu(filled_on[p]);
  } catch (...) {
    release();
    throw;
  }
  layout_.buffers.assign(owned_.begin(), owned_.end());
}

NodeBuffers::~NodeBuffers() { release(); }

void NodeBuffers::release() {
  for (std::byte*& buffer : owned_) {
    if (buffer != nullptr) munmap(buffer, buffer_bytes_);
    buffer = nullptr;
  }
}

}  // namespace numatwin::shuffle
