// P-MPSM, the sort-merge join of Albutiu et al. (sim/src/plan/operators/sort_merge_join.cpp has the
// model): the loops of its four phases, each one worker's share. The run (sort_merge_join_run.hpp)
// places the data, times the phases between barriers and verifies.
//
// sort_by_key: phases 1 and 3's sort of one run of tuples by key (std::sort, the run's tuples in
// place); the cost microbenchmark sort_tuples times this function.
// merge_join: one merge of a sorted fact piece with a sorted dimension run of distinct keys;
// matches and sum(d.value + f.value) modulo 2^64, as the hash join.
// range_of: the key range (0..n-1) a key belongs to, given the ranges' lower bounds
// (lower[0] = 0 <= lower[1] <= ... <= lower[n - 1]): binary search, as P-MPSM's splitters.
// range_histogram / range_scatter: phase 2 of one worker: count its chunk's tuples per range,
// then write them into `out`, range v's piece starting at offset[v] (the prefix sums of the
// counts); the order within a piece is the chunk's.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "numatwin/validate/kernels/data_generator.hpp"
#include "numatwin/validate/kernels/hash_join_kernels.hpp"

namespace numatwin::validate {

void sort_by_key(std::span<Tuple> run);
JoinTotals merge_join(std::span<const Tuple> facts, std::span<const Tuple> dims);

std::size_t range_of(std::uint64_t key, std::span<const std::uint64_t> lower);
std::vector<std::size_t> range_histogram(std::span<const Tuple> chunk,
                                         std::span<const std::uint64_t> lower);
// offset: one start per range (range v's piece is [offset[v], offset[v] + count[v]) in `out`).
void range_scatter(std::span<const Tuple> chunk, std::span<const std::uint64_t> lower,
                   std::vector<std::size_t> offset, Tuple* out);

}  // namespace numatwin::validate
