// Max-min fair sharing of capacities (link, memory-controller and queue bandwidth) between
// flows, by progressive filling. Pure: no topology types inside; the simulator numbers its
// resources and flows and calls MaxMinSolver::solve at every event, reusing its buffers.
//
// ── Problem ─────────────────────────────────────────────────────────────────────────────────
// Resources r = 0..R-1 with capacities c_r >= 0 (finite). Flows f = 0..F-1, each with
//   - terms (r, a_fr), a_fr > 0: running at rate x_f, flow f consumes a_fr * x_f of r's
//     capacity (a coherence probe puts a fraction of a flow's rate on another link, a write
//     miss puts a line read and a line write on the same link: a = 2). Repeated terms on one
//     resource add up. a_fr = 0 for resources the flow does not name;
//   - a rate bound b_f in [0, +inf] (the flow's own limit: outstanding misses * line / latency);
//   - a weight w_f > 0 (default 1): weighted max-min, unfrozen flows grow as x_f = w_f * t.
// Feasible set X = { x : 0 <= x_f <= b_f, load_r(x) = sum_f a_fr x_f <= c_r for all r }.
// Units: the solver has none of its own; capacities, bounds and rates share the caller's unit
// (the simulator uses bytes per second); coefficients and weights are dimensionless.
//
// ── Max-min fairness ────────────────────────────────────────────────────────────────────────
// x in X is (weighted) max-min fair when no normalised rate x_f / w_f can be raised, staying
// in X, without lowering some x_g / w_g <= x_f / w_f. It exists and is unique: it is the
// leximin-largest vector of normalised rates over the compact convex set X.
//
// Bottleneck characterisation (what the tests check). x in X is max-min fair iff every flow f
//   (B) sits at its own bound, x_f = b_f, or
//   (S) crosses a saturated resource r (a_fr > 0, load_r = c_r) on which it has the largest
//       normalised rate: x_f / w_f >= x_g / w_g for every g with a_gr > 0. r is f's bottleneck.
// Proof of "if": let y in X with y_f / w_f > x_f / w_f. (B) is impossible (y_f <= b_f), so take
// r from (S): sum_g a_gr y_g <= c_r = sum_g a_gr x_g while a_fr (y_f - x_f) > 0, hence some g on r
// has y_g < x_g, i.e. y_g / w_g < x_g / w_g <= x_f / w_f: raising f lowered a flow whose
// normalised rate was not larger. ("Only if" follows from uniqueness and the algorithm below.)
//
// ── Progressive filling ─────────────────────────────────────────────────────────────────────
// Raise a common level t from 0; every unfrozen flow runs at x_f = w_f t. With
//   L_r = sum over frozen f of a_fr x_f      (load already fixed on r)
//   S_r = sum over unfrozen f of a_fr w_f    (growth of r's load per unit of t)
// resource r fills up at t_r = (c_r - L_r) / S_r (never when S_r = 0), flow f hits its bound at
// t_f = b_f / w_f. Take the earliest event: a bound freezes its flow at x_f = b_f (bottleneck:
// its own bound); a resource freezes all its unfrozen flows at x_f = w_f t_r (bottleneck: r).
// Update L and S of the resources those flows cross and repeat until every flow is frozen.
// Freezing flows at level t adds to L_r exactly the load they already had and removes them from
// S_r, so every t_r is non-decreasing: events come in increasing t, and each flow is frozen once.
// Invariants of the result: no capacity is exceeded; a flow frozen by r has the largest
// normalised rate on r (all others on r froze earlier at lower levels or together with it) and
// r is saturated, so (S) holds; bound-frozen flows satisfy (B). Hence x is max-min fair.
//
// Implementation. Bound events are sorted once. Resource events sit in a 4-ary min-heap keyed
// by t_r. Since t_r only grows, a key in the heap is a lower bound of the true t_r: freezing a
// flow just updates L_r and S_r (O(1) per term), and a key is recomputed when it reaches the top
// (if it grew, it is sifted down; otherwise the top is the true earliest resource event). The
// loop stops as soon as every flow is frozen. S_r is kept by subtraction and summed afresh once
// it has dropped below 1e-6 of its last exact value (with very unequal weights cancellation
// would otherwise cost digits). The resource -> flows incidence (transposed CSR) is rebuilt per
// solve by counting sort. With N terms in total and B bounded flows:
//   time O(N log R + B log B + F + R) (each term stales at most one key), memory O(N + R + F);
//   MaxMinSolver keeps its buffers, so repeated solves do not allocate once warm.
// Rounding: ties between resources saturating at the same level are resolved one resource at a
// time; the level never decreases (t = max(t, t_r)), which can overshoot a capacity by a few ulps.
//
// ── Edge cases ──────────────────────────────────────────────────────────────────────────────
//   - A flow with no terms and no bound is unbounded: rate +infinity, bottleneck kNoBottleneck.
//     A flow with no terms but a finite bound runs at its bound.
//   - A zero-capacity resource freezes the flows that cross it at rate 0 (they are not an error).
//   - b_f = 0 gives rate 0 with bottleneck kRateBound; an empty problem gives empty vectors.
//   - Bad input (negative, NaN or infinite capacity; coefficient <= 0 or not finite; resource or
//     flow index out of range; NaN or negative bound; weight <= 0 or not finite) is rejected when
//     it is added, with std::invalid_argument naming the flow, term and value. So a MaxMinProblem
//     is always valid and solve() never throws on input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <vector>

namespace numatwin::model {

// One term of a flow: the flow consumes `coefficient` times its rate of resource `resource`.
struct ResourceUse {
  int resource = 0;
  double coefficient = 1.0;

  bool operator==(const ResourceUse&) const = default;
};

// Resources and flows, stored flat (flows as CSR rows of terms) so that clearing and refilling
// for the next event reuses the memory.
class MaxMinProblem {
 public:
  static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

  // Returns the new resource's index (0, 1, ...). capacity: finite, >= 0.
  int add_resource(double capacity);
  void set_capacity(int resource, double capacity);

  // Returns the new flow's index (0, 1, ...). Every use names an existing resource with a finite
  // coefficient > 0; rate_bound in [0, +inf]; weight finite and > 0.
  int add_flow(std::span<const ResourceUse> uses, double rate_bound = kUnbounded,
               double weight = 1.0);
  int add_flow(std::initializer_list<ResourceUse> uses, double rate_bound = kUnbounded,
               double weight = 1.0);
  void set_rate_bound(int flow, double rate_bound);
  void set_weight(int flow, double weight);

  // Remove everything (or only the flows); allocated memory is kept for the next fill.
  void clear();
  void clear_flows();
  void reserve(int resources, int flows, int terms);

  [[nodiscard]] int resource_count() const { return static_cast<int>(capacities_.size()); }
  [[nodiscard]] int flow_count() const { return static_cast<int>(rate_bounds_.size()); }
  [[nodiscard]] int term_count() const { return static_cast<int>(terms_.size()); }
  [[nodiscard]] double capacity(int resource) const;
  [[nodiscard]] std::span<const ResourceUse> uses(int flow) const;
  [[nodiscard]] double rate_bound(int flow) const;
  [[nodiscard]] double weight(int flow) const;

 private:
  friend class MaxMinSolver;  // reads the flat arrays without per-call index checks

  void check_resource(int resource, const char* where) const;
  void check_flow(int flow, const char* where) const;

  std::vector<double> capacities_;
  std::vector<int> flow_begin_{0};  // flow f's terms are terms_[flow_begin_[f], flow_begin_[f+1])
  std::vector<ResourceUse> terms_;
  std::vector<double> rate_bounds_;
  std::vector<double> weights_;
};

struct MaxMinSolution {
  // Values of `bottlenecks` that are not a resource index.
  static constexpr int kRateBound = -1;     // the flow runs at its own rate bound
  static constexpr int kNoBottleneck = -2;  // no terms, no bound: rate is +infinity
  // A resource counts as saturated when load >= capacity * (1 - kSaturationTolerance).
  static constexpr double kSaturationTolerance = 1e-9;

  std::vector<double> rates;            // per flow: x_f
  std::vector<int> bottlenecks;         // per flow: the resource that froze it, or a value above
  std::vector<double> loads;            // per resource: sum_f a_fr x_f (flows with terms only)
  std::vector<double> utilisations;     // per resource: load / capacity; 0 when capacity is 0
  std::vector<std::uint8_t> saturated;  // per resource: 1 when load reached capacity (see above)
};

// What the caller of MaxMinSolver::solve knows of the problem's flows (their terms and weights)
// and resources against the solver's last call. The solution is the same bit for bit whichever
// is passed; only the work differs.
enum class MaxMinFlows {
  kCompare,     // unknown: compared with the last call's, which are kept as a copy for the next
  kNew,         // new flows: transposed afresh, no copy kept (a later kCompare transposes again)
  kSameAsLast,  // the last call's flows; only rate bounds or capacities changed (the bandwidth
                // model's fixed-point rounds): transposed only if the counts of flows, terms or
                // resources show otherwise
};

// Solves MaxMinProblems one after the other, keeping its buffers between calls.
class MaxMinSolver {
 public:
  // The reference stays valid (and its vectors keep their memory) until the next solve().
  const MaxMinSolution& solve(const MaxMinProblem& problem, MaxMinFlows flows = MaxMinFlows::kCompare);
  [[nodiscard]] const MaxMinSolution& solution() const { return solution_; }

 private:
  struct Event {
    double level;  // t at which the event happens (for a resource: a lower bound until refreshed)
    int id;        // resource index (heap_) or flow index (bound_events_)
  };

  // The transposed incidence, S_r and the unfrozen term counts of the problem's flows.
  void prepare(const MaxMinProblem& problem);
  [[nodiscard]] bool prepared_for(const MaxMinProblem& problem, MaxMinFlows flows) const;
  void freeze(const MaxMinProblem& problem, int flow, double rate, int bottleneck);
  [[nodiscard]] double exact_slope(const MaxMinProblem& problem, int resource) const;
  void sift_down(std::size_t at);  // restores the heap after heap_[at] grew
  void make_heap();
  void pop_top();

  MaxMinSolution solution_;
  // Transposed incidence: resource r's terms are incidence_[resource_begin_[r] .. [r+1]).
  struct Incidence {
    int flow;
    double coefficient;
  };
  std::vector<int> resource_begin_;
  std::vector<Incidence> incidence_;
  // The flows the incidence was built from, and S_r and the term counts before any flow froze:
  // a problem whose flows are the same (only rate bounds or capacities changed, as in the
  // bandwidth model's fixed-point rounds) reuses them instead of transposing again. The same
  // inputs in the same order give the same sums, so the solution is bitwise the same.
  int prepared_resources_ = -1;  // -1: no copy of the flows kept (prepared_flow_begin_ ...)
  // The counts of the flows last transposed (kSameAsLast checks them), -1: none yet.
  int incidence_resources_ = -1;
  int incidence_flows_ = -1;
  int incidence_terms_ = -1;
  std::vector<int> prepared_flow_begin_;
  std::vector<ResourceUse> prepared_terms_;
  std::vector<double> prepared_weights_;
  std::vector<double> initial_slope_;
  std::vector<int> initial_active_terms_;
  std::vector<double> fixed_load_;       // L_r
  std::vector<double> slope_;            // S_r
  std::vector<double> slope_reference_;  // S_r when last summed afresh
  std::vector<int> active_terms_;        // number of unfrozen terms on r
  std::vector<std::uint8_t> frozen_;     // per flow
  int unfrozen_ = 0;                     // flows not yet frozen
  std::vector<Event> heap_;              // resource events, 4-ary min-heap on (level, id)
  std::vector<Event> bound_events_;      // (b_f / w_f, f), sorted
};

// One-shot convenience: a fresh solver, a copied-out solution.
[[nodiscard]] MaxMinSolution solve_max_min(const MaxMinProblem& problem);

}  // namespace numatwin::model
