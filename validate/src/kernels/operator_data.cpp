#include "numatwin/validate/kernels/operator_data.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace numatwin::validate {
namespace {

std::uint64_t rows_of(double records, const char* option) {
  if (!std::isfinite(records) || records < 1.0 || records > 1e15)
    throw std::invalid_argument(std::string(option) + " must be >= 1 (and finite)");
  return static_cast<std::uint64_t>(std::llround(records));
}

}  // namespace

std::uint64_t input_rows(const sim::WorkloadSpec& spec) {
  return rows_of(spec.data.records, "--records");
}
std::uint64_t build_rows(const sim::WorkloadSpec& spec) {
  return rows_of(spec.data.build_records, "--build-records");
}

sim::KeySpec probe_key_spec(const sim::WorkloadSpec& spec) {
  sim::KeySpec keys = spec.data.keys;
  if (spec.kind == sim::WorkloadKind::kHashJoin || spec.kind == sim::WorkloadKind::kIndexJoin ||
      spec.kind == sim::WorkloadKind::kSortMergeJoin) {
    keys.groups = static_cast<double>(build_rows(spec));
    keys.window_groups = std::min(keys.window_groups, keys.groups);
  }
  return keys;
}

ProbeData::ProbeData(const sim::WorkloadSpec& spec)
    : generator_(probe_key_spec(spec), input_rows(spec), spec.seed) {}

BuildData::BuildData(const sim::WorkloadSpec& spec)
    : keys_(build_rows(spec), spec.seed + 1), seed_(spec.seed + 1) {}

void BuildData::fill(std::uint64_t first_row, std::span<Tuple> out) const {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint64_t row = first_row + i;
    out[i] = {keys_.key(row), generated_value(seed_, row)};
  }
}

}  // namespace numatwin::validate
