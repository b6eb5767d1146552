// The merge phase of P-MPSM (Albutiu et al.; sim/operator_plan.hpp's sort-merge join), the only
// timed phase: the fact table S is cut into one run per worker, each sorted by key; the
// dimension table R is range-partitioned into one sorted run per worker (worker w holds the
// keys in [lo_w, lo_{w+1})). Sorting and partitioning are prebuilt, untimed.
//
// Step k of worker w merges the piece of producer p's fact run whose keys fall into w's range
// (found untimed by binary search) with w's whole dimension run, p being the k-th producer of
// w's visiting order (sim::shuffle_order: naive = every worker the same order, ring = the
// coordinated rings). Tight: a barrier after every step; loose: none.
//
// merge_join: one merge of a sorted fact piece with a sorted dimension run of distinct keys;
// matches and sum(d.value + f.value) modulo 2^64, as the hash join.
#pragma once

#include <span>

#include "numatwin/validate/data_generator.hpp"
#include "numatwin/validate/hash_join_kernels.hpp"

namespace numatwin::validate {

JoinTotals merge_join(std::span<const Tuple> facts, std::span<const Tuple> dims);

}  // namespace numatwin::validate
