#include "numatwin/model/ecm.hpp"

#include <algorithm>
#include <cmath>

namespace numatwin::model {
namespace {

// Cycles per payload byte of one level of rate `bytes_per_cycle`, for `in` bytes into the level's
// lower side and `out` bytes out of it per payload byte.
double level_cycles(double bytes_per_cycle, bool full_duplex, double in, double out) {
  return (full_duplex ? std::max(in, out) : in + out) / bytes_per_cycle;
}

}  // namespace

InCacheCycles in_cache_cycles_per_byte(const CoreDataPath& path, bool reads, bool writes) {
  if (!reads && !writes) return {};
  // Per payload byte: a read brings one byte in; a write brings one in (for ownership) and
  // takes one out (the write-back).
  const double in = (reads ? 1.0 : 0.0) + (writes ? 1.0 : 0.0);
  const double out = writes ? 1.0 : 0.0;
  double serial = 0.0;
  double overlapping = 0.0;
  auto add = [&](double cycles, bool overlaps) {
    if (overlaps) {
      overlapping = std::max(overlapping, cycles);
    } else {
      serial += cycles;
    }
  };
  const double l1 = (reads ? 1.0 / (kScalarAccessBytes * path.loads_per_cycle) : 0.0) +
                    (writes ? 1.0 / (kScalarAccessBytes * path.stores_per_cycle) : 0.0);
  add(l1, path.l1_overlaps);
  add(level_cycles(path.l2_to_l1_bytes_per_cycle, path.l2_l1_full_duplex, in, out), path.l2_l1_overlaps);
  if (path.l3_to_l2_bytes_per_cycle) {
    add(level_cycles(*path.l3_to_l2_bytes_per_cycle, path.l3_l2_full_duplex, in, out), path.l3_l2_overlaps);
  }
  if (path.memory_overlaps) return InCacheCycles{0.0, std::max(serial, overlapping)};
  return InCacheCycles{serial, overlapping};
}

std::vector<std::string> core_data_path_problems(const CoreDataPath& path) {
  std::vector<std::string> problems;
  auto positive = [&](const char* name, double v) {
    if (!(v > 0.0) || !std::isfinite(v)) problems.push_back(std::string(name) + " must be a finite number > 0");
  };
  positive("loads_per_cycle", path.loads_per_cycle);
  positive("stores_per_cycle", path.stores_per_cycle);
  positive("l2_to_l1_bytes_per_cycle", path.l2_to_l1_bytes_per_cycle);
  if (path.l3_to_l2_bytes_per_cycle) positive("l3_to_l2_bytes_per_cycle", *path.l3_to_l2_bytes_per_cycle);
  return problems;
}

}  // namespace numatwin::model
