// Out-of-line instances of the radix join's steps (validate/src/kernels/radix_join_steps.hpp) for
// derive.py: the header's functions are inline and otherwise appear only inside the join's and
// the cost microbenchmarks' larger functions. Each wrapper holds exactly one step, called the
// way the cost microbenchmark calls it (cost_operator_microbenchmarks.cpp: kRadixBits = 8, a
// constant; 256 partitions, so one-line write-combining buffers). The *_runtime_bits wrappers
// take the partition bits at run time, as radix_join_kernel.cpp does. Not part of any build.
#include "kernels/radix_join_steps.hpp"

namespace numatwin::validate::loop_cycles {

constexpr int kBits = 8;  // cost_microbenchmark_runner.hpp's kRadixBits

__attribute__((noinline)) void histogram(const Tuple* in, std::size_t n, std::uint64_t* counts) {
  radix::count_partitions(in, n, kBits, counts);
}

__attribute__((noinline)) void histogram_runtime_bits(const Tuple* in, std::size_t n, int bits,
                                                      std::uint64_t* counts) {
  radix::count_partitions(in, n, bits, counts);
}

__attribute__((noinline)) void scatter(const Tuple* in, std::size_t n, Tuple* out, std::uint64_t* first,
                                       radix::ScatterBuffers& state) {
  radix::scatter_partitions<1>(in, n, out, first, kBits, state);
}

__attribute__((noinline)) void scatter_wide(const Tuple* in, std::size_t n, Tuple* out,
                                            std::uint64_t* first, int bits,
                                            radix::ScatterBuffers& state) {
  radix::scatter_partitions<radix::kWideBufferLines>(in, n, out, first, bits, state);
}

__attribute__((noinline)) void partition_build(const Tuple* r, std::size_t nr, radix::LocalEntry* table,
                                               int capacity_bits) {
  radix::build_partition_table(r, nr, kBits, table, capacity_bits);
}

__attribute__((noinline)) JoinTotals partition_probe(const Tuple* s, std::size_t ns,
                                                     const radix::LocalEntry* table, int capacity_bits) {
  return radix::probe_partition_table(s, ns, kBits, table, capacity_bits);
}

}  // namespace numatwin::validate::loop_cycles
