// The generated relations of the operator runs (operator_run.hpp), in one place so that tests,
// benchmarks and the DuckDB comparison (bench/operator_compare.cpp) see exactly the data the
// kernels run on. Every row is a pure function of (spec, row) (data_generator.hpp).
//   input / S   keys from spec.data.keys (S: with groups = build_records), seed spec.seed
//   R           keys: a bijection of [0, build_records) (seed + 1); values: generated_value(seed +
//   1, row)
#pragma once

#include <cstdint>
#include <span>

#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/kernels/data_generator.hpp"

namespace numatwin::validate {

// The key spec of the aggregation input (kind count/median) or of S (joins: G = build_records).
sim::KeySpec probe_key_spec(const sim::WorkloadSpec& spec);
// Rows as counts (spec.data.records, spec.data.build_records rounded to integers).
std::uint64_t input_rows(const sim::WorkloadSpec& spec);
std::uint64_t build_rows(const sim::WorkloadSpec& spec);

// Tuples [first_row, first_row + out.size()) of the aggregation input or S.
class ProbeData {
 public:
  explicit ProbeData(const sim::WorkloadSpec& spec);
  void fill(std::uint64_t first_row, std::span<Tuple> out) const {
    generator_.fill_tuples(first_row, out);
  }
  [[nodiscard]] const KeyGenerator& generator() const { return generator_; }

 private:
  KeyGenerator generator_;
};

// Tuples of R (distinct keys).
class BuildData {
 public:
  explicit BuildData(const sim::WorkloadSpec& spec);
  void fill(std::uint64_t first_row, std::span<Tuple> out) const;

 private:
  UniqueKeys keys_;
  std::uint64_t seed_;
};

}  // namespace numatwin::validate
