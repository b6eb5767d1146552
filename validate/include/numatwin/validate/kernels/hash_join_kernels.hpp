// Hash join kernels (Memarzia et al.'s W3 and its radix-partitioned alternative), equi-join of
// R (build, distinct keys: a primary key) and S (probe) on the key; the result is the number of
// matches and the checksum sum(r.value + s.value) over them, modulo 2^64.
//
// Non-partitioned (the study's W3 and sim/plan/operator_plan.hpp): one shared table on R, twice
// R's size (half full).
//   build  every worker inserts its chunk of R: CAS on the key, then the payload (R's value);
//   probe  after a barrier, every worker looks up its chunk of S, read-only; R's keys are
//          distinct, so a lookup stops at the first match.
// Both loops keep kPrefetchDistance table slots prefetched ahead.
//
// Radix-partitioned (WorkloadSpec::join_algorithm kRadix; radix_join_kernel.cpp):
//   histogram  each worker counts its chunks of R and S per partition (the top `bits` bits of
//              the key's Fibonacci hash; operator_run.hpp's radix_join_bits gives the bits:
//              sim::radix_partition_bits, partitions whose tables fit in half of the core's
//              private cache);
//   scatter    after a prefix sum over (partition, worker), each worker copies its tuples to
//              their partitions' ranges through a buffer per partition (software write
//              combining: 4 cache lines up to 128 partitions, 1 beyond), full buffers written
//              with streaming (non-temporal) stores where SSE2 has them, so each partition is
//              contiguous in R' and S' and no line is read for ownership;
//   join       workers take partitions from a shared counter; per partition a private table of
//              a power of two >= 2 |R_p| entries (the hash bits below the partition bits) is
//              built from R'_p and probed with S'_p, the table cache resident.
// Every streaming loop (histogram, scatter, build, probe) prefetches its input 4 KiB ahead.
// Keys must differ from kEmptyKey (as for the shared table).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "numatwin/validate/kernels/data_generator.hpp"
#include "numatwin/validate/kernels/shared_hash_table.hpp"
#include "numatwin/validate/host/thread_team.hpp"
#include "numatwin/validate/kernels/kernel_support.hpp"

namespace numatwin::validate {

struct JoinTotals {
  std::uint64_t matches = 0;
  std::uint64_t checksum = 0;  // sum of r.value + s.value over the matches, modulo 2^64
  JoinTotals& operator+=(const JoinTotals& other) {
    matches += other.matches;
    checksum += other.checksum;
    return *this;
  }
};

// One worker's part of the build (its chunk of R) and of the probe (its chunk of S).
void hash_join_build(TableView table, std::span<const Tuple> build, bool concurrent);
JoinTotals hash_join_probe(TableView table, std::span<const Tuple> probe);

inline constexpr int kMaxRadixJoinBits = 20;

// The radix-partitioned join on `team` (every worker takes its chunk of R and S) over 2^bits
// partitions. r_out and s_out hold r.size() and s.size() tuples. Phase times ("partition",
// "join") go to `phases`. Throws std::invalid_argument for bits outside [0, kMaxRadixJoinBits].
JoinTotals radix_hash_join(ThreadTeam& team, std::span<const Tuple> r, std::span<const Tuple> s,
                           Tuple* r_out, Tuple* s_out, int bits, std::vector<PhaseTime>* phases);

}  // namespace numatwin::validate
