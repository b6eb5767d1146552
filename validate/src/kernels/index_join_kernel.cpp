#include "numatwin/validate/kernels/index_join_kernel.hpp"

#include <algorithm>
#include <stdexcept>

namespace numatwin::validate {
namespace {

// The last slot c of a node's ascending keys with keys[c] <= key (0 when none): a branch-free
// binary search of three steps (keys[0] is never needed to decide).
inline std::uint64_t last_not_above(const std::uint64_t* keys, std::uint64_t key) {
  std::uint64_t c = keys[4] <= key ? 4 : 0;
  c += keys[c + 2] <= key ? 2 : 0;
  c += keys[c + 1] <= key ? 1 : 0;
  return c;
}

}  // namespace

IndexShape index_shape(std::uint64_t keys) {
  if (keys == 0)
    throw std::invalid_argument("an index needs at least one key (--build-records >= 1)");
  IndexShape shape;
  shape.keys = keys;
  std::vector<std::uint64_t> nodes;  // leaves first
  std::vector<std::uint64_t> span;
  std::uint64_t level = (keys + 7) / 8;
  std::uint64_t per_node = 8;
  for (;;) {
    nodes.push_back(level);
    span.push_back(per_node);
    if (level == 1) break;
    level = (level + 7) / 8;
    per_node *= 8;
  }
  std::reverse(nodes.begin(), nodes.end());
  std::reverse(span.begin(), span.end());
  std::uint64_t begin = 0;
  for (std::size_t l = 0; l < nodes.size(); ++l) {
    shape.level_begin.push_back(begin);
    begin += nodes[l];
  }
  shape.level_nodes = nodes;
  shape.keys_per_node = span;
  shape.nodes = begin;
  return shape;
}

void write_index_nodes(const IndexShape& shape, const std::uint64_t* sorted_keys, IndexNode* nodes,
                       std::uint64_t begin, std::uint64_t end) {
  const int depth = shape.depth();
  int level = 0;
  for (std::uint64_t n = begin; n < end; ++n) {
    while (level + 1 < depth && n >= shape.level_begin[static_cast<std::size_t>(level + 1)])
      ++level;
    while (n < shape.level_begin[static_cast<std::size_t>(level)]) --level;
    const auto l = static_cast<std::size_t>(level);
    const std::uint64_t j = n - shape.level_begin[l];
    // Key c of node j: the first key below its c-th eighth.
    const std::uint64_t child_span = shape.keys_per_node[l] / 8;
    for (std::uint64_t c = 0; c < 8; ++c) {
      const std::uint64_t first = (j * 8 + c) * child_span;
      nodes[n].keys[c] = first < shape.keys ? sorted_keys[first] : kEmptyKey;
    }
  }
}

JoinTotals index_join_probe(const IndexShape& shape, const IndexNode* nodes,
                            std::span<const Tuple> probe) {
  const Tuple* __restrict s = probe.data();
  const std::size_t n = probe.size();
  const int depth = shape.depth();
  const std::uint64_t* __restrict level_begin = shape.level_begin.data();
  std::uint64_t matches = 0;
  std::uint64_t checksum = 0;
  std::uint64_t at[kIndexBatch];
  for (std::size_t i = 0; i < n; i += kIndexBatch) {
    const std::size_t b = std::min(kIndexBatch, n - i);
    for (std::size_t k = 0; k < b; ++k) at[k] = 0;
    for (int l = 0; l + 1 < depth; ++l) {
      const IndexNode* level = nodes + level_begin[l];
      const IndexNode* below = nodes + level_begin[l + 1];
      for (std::size_t k = 0; k < b; ++k) {
        const std::uint64_t key = s[i + k].key;
        at[k] = at[k] * 8 + last_not_above(level[at[k]].keys, key);
        __builtin_prefetch(below + at[k], 0, 3);
      }
    }
    const IndexNode* leaves = nodes + level_begin[depth - 1];
    for (std::size_t k = 0; k < b; ++k) {
      const std::uint64_t key = s[i + k].key;
      const std::uint64_t* keys = leaves[at[k]].keys;
      const std::uint64_t c = last_not_above(keys, key);
      const bool hit = keys[c] == key;
      matches += hit ? 1 : 0;
      checksum += hit ? at[k] * 8 + c + s[i + k].value : 0;
    }
  }
  return {matches, checksum};
}

}  // namespace numatwin::validate
