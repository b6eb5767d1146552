// One plan for every sample of an interval (prediction_interval.hpp), when the sampled cost only
// scales rates.
//
// A prediction's samples differ only in the drawn costs. When a single cost is drawn and the plan
// reads it only as a factor of some transfers' core work (the sort-merge join's
// merge_cycles_per_tuple: cycles_per_byte = pieces x cost / bytes), every sample's plan is the
// spec's plan with those transfers' cycles_per_byte scaled by value / spec's value; building the
// plan again per sample (64 x 8192 transfers on a 64-core machine) is then wasted work.
//
// Detection, by building the plan at the smallest, the middle (log scale) and the largest drawn value and comparing each
// with the spec's plan op by op: the plans must agree in everything (threads, cores, steps, op
// kinds and every field) except cycles_per_byte of some transfers, and each of those must be
// proportional to the cost (value x / spec's value, relative 1e-12) at each and not 0 at
// the spec's value. Anything else (ops added or dropped, a placement, a spread, a byte count,
// lines in flight or a phase share that changes, an offset that is not proportional) is a
// structure change: no reuse, every sample is built. Between those three values the structure is
// assumed, not checked, to stay: the operators' thresholds in a cost (a table fitting a cache)
// are crossed once as the cost grows, so a change would show at an end.
//
// Exactness: a scaled cycles_per_byte is (c0 / v0) x x, where a built plan computes
// (pieces x x) / bytes; the two differ by a few units in the last place (relative < 1e-15),
// and the simulated times by the solver's tolerance at most (tests/sim/sample_plan_test.cpp
// compares both for random draws).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/plan/plan.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

// A transfer whose cycles_per_byte is proportional to the sampled cost.
struct ScaledTransfer {
  std::size_t thread = 0;
  std::size_t op = 0;
  double cycles_per_byte_per_unit = 0.0;  // the spec's cycles_per_byte / the spec's value
};

// The spec's plan and the transfers a sample of `cost` rescales.
struct SamplePlan {
  std::string cost;
  Plan plan;
  std::vector<ScaledTransfer> scaled;
  // Writes the plan of `cost` = value into `plan` (a copy of this->plan, or a plan this call
  // wrote before): only the scaled transfers change.
  void apply(Plan& plan, double value) const;
};

// The SamplePlan of `base` (= build_plan(topology, spec)) for drawn values of `cost` between
// `lowest` and `highest`, or nothing when the cost changes the plan's structure (above), the
// spec's value is 0 or not finite, or the plan does not read the cost at all.
std::optional<SamplePlan> rate_only_sample_plan(const model::Topology& topology, const WorkloadSpec& spec, const Plan& base,
                                                const std::string& cost, double lowest, double highest);

}  // namespace numatwin::sim
