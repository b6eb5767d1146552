// Producer buffers placed on their producers' NUMA nodes, for Runner::run.
//
// Producer p's buffer holds its n pieces (piece c for consumer c) at a stride of piece_bytes
// rounded up to 64 bytes, in its own anonymous mapping. Where libnuma works (numa_available()
// >= 0) the mapping is bound to the node of p's CPU (numa_node_of_cpu, numa_tonode_memory) before
// it is written; an unpinned producer's buffer lands where its thread runs when it fills it, and
// without libnuma support (or on a one-node machine) first touch alone places it. Either way producer p's own thread writes it first (fill), so first
// touch agrees with the binding. node(p) says where it was meant to go (-1: no NUMA support).
//
// This header is C++17 and needs nothing but the standard library.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "numatwin/shuffle/runner.hpp"

namespace numatwin::shuffle {

// Called on producer p's thread for each of its pieces: write piece `consumer` (bytes long).
using Producer = std::function<void(int producer, int consumer, std::byte* piece, std::size_t bytes)>;

class NodeBuffers {
 public:
  // Allocates one buffer per runner thread and fills every piece with `produce` on its
  // producer's thread. Throws std::invalid_argument for piece_bytes 0, std::bad_alloc or
  // std::runtime_error (naming the producer and node) when memory cannot be had.
  NodeBuffers(Runner& runner, std::size_t piece_bytes, const Producer& produce);
  ~NodeBuffers();
  NodeBuffers(const NodeBuffers&) = delete;
  NodeBuffers& operator=(const NodeBuffers&) = delete;

  [[nodiscard]] const PieceLayout& layout() const { return layout_; }
  [[nodiscard]] int node(int producer) const { return nodes_[static_cast<std::size_t>(producer)]; }
  // Whether the buffers were bound through libnuma.
  [[nodiscard]] bool numa_bound() const { return numa_; }

 private:
  void release();

  PieceLayout layout_;
  std::vector<std::byte*> owned_;
  std::vector<int> nodes_;
  std::size_t buffer_bytes_ = 0;
  bool numa_ = false;
};

}  // namespace numatwin::shuffle
