// Index nested-loop join (Memarzia et al.'s W4): S probes a prebuilt in-memory index on R's key.
//
// The index is the simulator's "B+-tree of 64-byte nodes, fan-out 8" (sim/plan/operator_plan.hpp),
// laid out implicitly, level by level from the root: a node holds 8 keys; leaves hold R's keys
// in ascending order, an inner node holds the smallest key of each of its 8 children, and
// child c of node j is node 8 j + c of the next level (missing keys are kEmptyKey). Built
// untimed; every node is a pure function of the sorted keys, so any worker may write any range
// of nodes (first touch by the policy's workers).
//
// Lookup: at each inner level, the child is the last key <= the probe key (a branch-free binary
// search over the 8 keys, three steps); at the leaf, the slot equal to the key gives its rank in R
// (position in sorted order). The probe loop walks kIndexBatch keys level by level, prefetching
// each next node, so independent misses overlap. Result: matches and sum(rank + s.value) modulo
// 2^64.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "numatwin/validate/kernels/data_generator.hpp"
#include "numatwin/validate/kernels/hash_join_kernels.hpp"

namespace numatwin::validate {

struct alignas(64) IndexNode {
  std::uint64_t keys[8];
};
static_assert(sizeof(IndexNode) == 64);

inline constexpr std::size_t kIndexBatch = 32;

struct IndexShape {
  std::uint64_t keys = 0;
  std::vector<std::uint64_t> level_begin;  // first node of each level, root level first
  std::vector<std::uint64_t> level_nodes;
  std::vector<std::uint64_t> keys_per_node;  // keys below one node of the level (8 for leaves)
  std::uint64_t nodes = 0;
  [[nodiscard]] int depth() const { return static_cast<int>(level_nodes.size()); }
};
// Throws std::invalid_argument for keys == 0.
IndexShape index_shape(std::uint64_t keys);

// Writes nodes [begin, end) of the index over `sorted_keys` (ascending, shape.keys of them).
void write_index_nodes(const IndexShape& shape, const std::uint64_t* sorted_keys, IndexNode* nodes,
                       std::uint64_t begin, std::uint64_t end);

// One worker's probes; a miss (key absent) counts nothing.
JoinTotals index_join_probe(const IndexShape& shape, const IndexNode* nodes,
                            std::span<const Tuple> probe);

}  // namespace numatwin::validate
