// Progressive filling for weighted max-min fairness; the mathematics is in maxmin_solver.hpp.
#include "numatwin/model/maxmin_solver.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace numatwin::model {

namespace {

// S_r is summed afresh once it has dropped below this fraction of its last exact value, so that
// subtracting large terms never leaves a small slope with a large relative error.
constexpr double kSlopeRefreshRatio = 1e-6;

[[noreturn]] void throw_invalid(const std::string& message) {
  throw std::invalid_argument("MaxMinProblem::" + message);
}

std::string to_text(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

void check_capacity(double capacity, const char* where, int resource) {
  if (!std::isfinite(capacity) || capacity < 0.0) {
    throw_invalid(std::string(where) + ": resource " + std::to_string(resource) +
                  ": capacity must be finite and >= 0, got " + to_text(capacity));
  }
}

void check_rate_bound(double rate_bound, const char* where, int flow) {
  if (!(rate_bound >= 0.0)) {  // NaN or negative
    throw_invalid(std::string(where) + ": flow " + std::to_string(flow) +
                  ": rate bound must be >= 0 (or +infinity for none), got " + to_text(rate_bound));
  }
}

void check_weight(double weight, const char* where, int flow) {
  if (!((weight > 0.0) & (weight < MaxMinProblem::kUnbounded))) {  // NaN, infinite or <= 0
    throw_invalid(std::string(where) + ": flow " + std::to_string(flow) +
                  ": weight must be finite and > 0, got " + to_text(weight));
  }
}

// The message for the first bad term of `uses` (add_flow found one).
[[noreturn]] void throw_bad_term(int flow, std::span<const ResourceUse> uses, int resource_count) {
  for (std::size_t term = 0; term < uses.size(); ++term) {
    const ResourceUse& use = uses[term];
    if (use.resource < 0 || use.resource >= resource_count) {
      throw_invalid("add_flow: flow " + std::to_string(flow) + ", term " + std::to_string(term) +
                    ": resource index " + std::to_string(use.resource) + " out of range [0, " +
                    std::to_string(resource_count) + ")");
    }
    if (!std::isfinite(use.coefficient) || use.coefficient <= 0.0) {
      throw_invalid("add_flow: flow " + std::to_string(flow) + ", term " + std::to_string(term) +
                    " (resource " + std::to_string(use.resource) +
                    "): coefficient must be finite and > 0, got " + to_text(use.coefficient));
    }
  }
  throw_invalid("add_flow: flow " + std::to_string(flow) + ": a bad term");
}

// Event order: by level, then by index (deterministic ties). LaterEvent makes a min-heap.
// Bitwise rather than short-circuit operators: heap comparisons are unpredictable, and this
// compiles without branches.
struct EarlierEvent {
  template <typename Event>
  bool operator()(const Event& a, const Event& b) const {
    return (a.level < b.level) | ((a.level == b.level) & (a.id < b.id));
  }
};
struct LaterEvent {
  template <typename Event>
  bool operator()(const Event& a, const Event& b) const {
    return EarlierEvent{}(b, a);
  }
};

}  // namespace

// ── MaxMinProblem ───────────────────────────────────────────────────────────────────────────

int MaxMinProblem::add_resource(double capacity) {
  check_capacity(capacity, "add_resource", resource_count());
  capacities_.push_back(capacity);
  return resource_count() - 1;
}

void MaxMinProblem::set_capacity(int resource, double capacity) {
  check_resource(resource, "set_capacity");
  check_capacity(capacity, "set_capacity", resource);
  capacities_[resource] = capacity;
}

int MaxMinProblem::add_flow(std::span<const ResourceUse> uses, double rate_bound, double weight) {
  const int flow = flow_count();
  check_rate_bound(rate_bound, "add_flow", flow);
  check_weight(weight, "add_flow", flow);
  // Every term checked in one pass without branches (the bandwidth model adds tens of terms per
  // flow at every event); the message is built by a second pass only when one is bad.
  const auto resources = static_cast<unsigned>(resource_count());
  bool valid = true;
  for (const ResourceUse& use : uses) {
    valid &= (static_cast<unsigned>(use.resource) < resources) & (use.coefficient > 0.0) & (use.coefficient < kUnbounded);
  }
  if (!valid) throw_bad_term(flow, uses, resource_count());
  const ResourceUse* own_begin = terms_.data();
  if (!uses.empty() && uses.data() >= own_begin && uses.data() < own_begin + terms_.size()) {
    // `uses` is another flow of this problem (from uses()): copy it before terms_ may reallocate.
    const std::vector<ResourceUse> copy(uses.begin(), uses.end());
    terms_.insert(terms_.end(), copy.begin(), copy.end());
  } else {
    terms_.insert(terms_.end(), uses.begin(), uses.end());
  }
  flow_begin_.push_back(static_cast<int>(terms_.size()));
  rate_bounds_.push_back(rate_bound);
  weights_.push_back(weight);
  return flow;
}

int MaxMinProblem::add_flow(std::initializer_list<ResourceUse> uses, double rate_bound,
                            double weight) {
  return add_flow(std::span<const ResourceUse>(uses.begin(), uses.size()), rate_bound, weight);
}

void MaxMinProblem::set_rate_bound(int flow, double rate_bound) {
  check_flow(flow, "set_rate_bound");
  check_rate_bound(rate_bound, "set_rate_bound", flow);
  rate_bounds_[flow] = rate_bound;
}

void MaxMinProblem::set_weight(int flow, double weight) {
  check_flow(flow, "set_weight");
  check_weight(weight, "set_weight", flow);
  weights_[flow] = weight;
}

void MaxMinProblem::clear() {
  capacities_.clear();
  clear_flows();
}

void MaxMinProblem::clear_flows() {
  flow_begin_.resize(1);
  terms_.clear();
  rate_bounds_.clear();
  weights_.clear();
}

void MaxMinProblem::reserve(int resources, int flows, int terms) {
  capacities_.reserve(static_cast<std::size_t>(std::max(resources, 0)));
  flow_begin_.reserve(static_cast<std::size_t>(std::max(flows, 0)) + 1);
  rate_bounds_.reserve(static_cast<std::size_t>(std::max(flows, 0)));
  weights_.reserve(static_cast<std::size_t>(std::max(flows, 0)));
  terms_.reserve(static_cast<std::size_t>(std::max(terms, 0)));
}

double MaxMinProblem::capacity(int resource) const {
  check_resource(resource, "capacity");
  return capacities_[resource];
}

std::span<const ResourceUse> MaxMinProblem::uses(int flow) const {
  check_flow(flow, "uses");
  return {terms_.data() + flow_begin_[flow],
          static_cast<std::size_t>(flow_begin_[flow + 1] - flow_begin_[flow])};
}

double MaxMinProblem::rate_bound(int flow) const {
  check_flow(flow, "rate_bound");
  return rate_bounds_[flow];
}

double MaxMinProblem::weight(int flow) const {
  check_flow(flow, "weight");
  return weights_[flow];
}

void MaxMinProblem::check_resource(int resource, const char* where) const {
  if (resource < 0 || resource >= resource_count()) {
    throw_invalid(std::string(where) + ": resource index " + std::to_string(resource) +
                  " out of range [0, " + std::to_string(resource_count()) + ")");
  }
}

void MaxMinProblem::check_flow(int flow, const char* where) const {
  if (flow < 0 || flow >= flow_count()) {
    throw_invalid(std::string(where) + ": flow index " + std::to_string(flow) +
                  " out of range [0, " + std::to_string(flow_count()) + ")");
  }
}

// ── MaxMinSolver ────────────────────────────────────────────────────────────────────────────

bool MaxMinSolver::prepared_for(const MaxMinProblem& problem, MaxMinFlows flows) const {
  switch (flows) {
    case MaxMinFlows::kNew: return false;
    case MaxMinFlows::kSameAsLast:
      return incidence_resources_ == problem.resource_count() && incidence_flows_ == problem.flow_count() &&
             incidence_terms_ == problem.term_count();
    case MaxMinFlows::kCompare: break;
  }
  return problem.resource_count() == prepared_resources_ && problem.flow_begin_ == prepared_flow_begin_ &&
         problem.weights_ == prepared_weights_ && problem.terms_ == prepared_terms_;
}

void MaxMinSolver::prepare(const MaxMinProblem& problem) {
  const std::vector<int>& flow_begin = problem.flow_begin_;
  const std::vector<ResourceUse>& terms = problem.terms_;
  const std::vector<double>& weights = problem.weights_;
  const auto resources = static_cast<std::size_t>(problem.resource_count());
  resource_begin_.assign(resources + 1, 0);
  for (const ResourceUse& use : terms) ++resource_begin_[use.resource + 1];
  for (std::size_t r = 0; r < resources; ++r) resource_begin_[r + 1] += resource_begin_[r];
  incidence_.resize(terms.size());
  active_terms_.assign(resources, 0);  // also the fill cursor of each resource's row
  slope_.assign(resources, 0.0);
  for (int f = 0; f < problem.flow_count(); ++f) {
    const double weight = weights[f];
    for (int k = flow_begin[f]; k < flow_begin[f + 1]; ++k) {
      const int r = terms[k].resource;
      incidence_[resource_begin_[r] + active_terms_[r]++] = {f, terms[k].coefficient};
      slope_[r] += terms[k].coefficient * weight;
    }
  }
  incidence_resources_ = problem.resource_count();
  incidence_flows_ = problem.flow_count();
  incidence_terms_ = problem.term_count();
  initial_slope_.assign(slope_.begin(), slope_.end());
  initial_active_terms_.assign(active_terms_.begin(), active_terms_.end());
}

const MaxMinSolution& MaxMinSolver::solve(const MaxMinProblem& problem, MaxMinFlows flows) {
  const std::vector<double>& capacities = problem.capacities_;
  const std::vector<int>& flow_begin = problem.flow_begin_;
  const std::vector<double>& weights = problem.weights_;
  const std::vector<double>& rate_bounds = problem.rate_bounds_;
  const int resource_count = problem.resource_count();
  const int flow_count = problem.flow_count();
  const auto resources = static_cast<std::size_t>(resource_count);
  const auto flow_total = static_cast<std::size_t>(flow_count);

  MaxMinSolution& out = solution_;
  out.rates.assign(flow_total, 0.0);
  out.bottlenecks.assign(flow_total, MaxMinSolution::kNoBottleneck);
  frozen_.assign(flow_total, 0);

  // Transposed incidence by counting sort; per-resource slope S_r and unfrozen term counts
  // (kept from the last call when the flows are the same: see prepared_terms_). The same inputs
  // in the same order give the same sums, so reusing them or not gives the same bits.
  if (!prepared_for(problem, flows)) {
    prepare(problem);
    if (flows == MaxMinFlows::kCompare) {
      prepared_resources_ = resource_count;
      prepared_flow_begin_.assign(flow_begin.begin(), flow_begin.end());
      prepared_terms_.assign(problem.terms_.begin(), problem.terms_.end());
      prepared_weights_.assign(weights.begin(), weights.end());
    } else {
      prepared_resources_ = -1;  // the copy no longer matches the incidence
    }
  } else {
    slope_.assign(initial_slope_.begin(), initial_slope_.end());
    active_terms_.assign(initial_active_terms_.begin(), initial_active_terms_.end());
  }
  slope_reference_.assign(slope_.begin(), slope_.end());
  fixed_load_.assign(resources, 0.0);

  // Bound events, sorted once. Flows without terms interact with nothing: settled at once.
  bound_events_.clear();
  unfrozen_ = flow_count;
  for (int f = 0; f < flow_count; ++f) {
    const double bound = rate_bounds[f];
    if (flow_begin[f] == flow_begin[f + 1]) {
      frozen_[f] = 1;
      --unfrozen_;
      out.rates[f] = bound;  // +infinity when unbounded
      out.bottlenecks[f] =
          std::isinf(bound) ? MaxMinSolution::kNoBottleneck : MaxMinSolution::kRateBound;
    } else if (!std::isinf(bound)) {
      bound_events_.push_back({bound / weights[f], f});
    }
  }
  std::sort(bound_events_.begin(), bound_events_.end(), EarlierEvent{});

  // Resource events: a min-heap of (t_r, r). Keys only grow as flows freeze, so a key in
  // the heap is a lower bound of the true t_r and is refreshed only when it reaches the top.
  heap_.clear();
  for (int r = 0; r < resource_count; ++r) {
    if (active_terms_[r] > 0) heap_.push_back({capacities[r] / slope_[r], r});
  }
  make_heap();

  double level = 0.0;
  std::size_t next_bound = 0;
  while (unfrozen_ > 0) {
    // Settle the heap top: drop resources without unfrozen flows, refresh stale keys.
    while (!heap_.empty()) {
      const int r = heap_.front().id;
      if (active_terms_[r] == 0) {
        pop_top();
        continue;
      }
      const double key = (capacities[r] - fixed_load_[r]) / slope_[r];
      if (!(key > heap_.front().level)) break;  // up to date (or lower by rounding)
      heap_.front().level = key;
      sift_down(0);
    }
    while (next_bound < bound_events_.size() && frozen_[bound_events_[next_bound].id]) {
      ++next_bound;
    }
    const bool have_resource = !heap_.empty();
    const bool have_bound = next_bound < bound_events_.size();
    if (!have_resource && !have_bound) break;  // unreachable: unfrozen flows have resources

    if (have_bound &&
        (!have_resource || !(heap_.front().level < bound_events_[next_bound].level))) {
      const Event event = bound_events_[next_bound++];  // bounds first on ties
      const int f = event.id;
      level = std::max(level, event.level);
      freeze(problem, f, rate_bounds[f], MaxMinSolution::kRateBound);
    } else {
      const int r = heap_.front().id;
      level = std::max(level, heap_.front().level);
      pop_top();
      for (int k = resource_begin_[r]; k < resource_begin_[r + 1]; ++k) {
        const int f = incidence_[k].flow;
        if (!frozen_[f]) freeze(problem, f, weights[f] * level, r);
      }
    }
  }

  // Loads summed afresh from the final rates (not taken from the incremental L_r).
  out.loads.assign(resources, 0.0);
  out.utilisations.assign(resources, 0.0);
  out.saturated.assign(resources, 0);
  for (int r = 0; r < resource_count; ++r) {
    double load = 0.0;
    for (int k = resource_begin_[r]; k < resource_begin_[r + 1]; ++k) {
      load += incidence_[k].coefficient * out.rates[incidence_[k].flow];
    }
    const double capacity = capacities[r];
    out.loads[r] = load;
    out.utilisations[r] = capacity > 0.0 ? load / capacity : 0.0;
    out.saturated[r] = load >= capacity * (1.0 - MaxMinSolution::kSaturationTolerance) ? 1 : 0;
  }
  return out;
}

void MaxMinSolver::freeze(const MaxMinProblem& problem, int flow, double rate, int bottleneck) {
  frozen_[flow] = 1;
  --unfrozen_;
  solution_.rates[flow] = rate;
  solution_.bottlenecks[flow] = bottleneck;
  const double weight = problem.weights_[flow];
  for (int k = problem.flow_begin_[flow]; k < problem.flow_begin_[flow + 1]; ++k) {
    const int r = problem.terms_[k].resource;
    const double coefficient = problem.terms_[k].coefficient;
    fixed_load_[r] += coefficient * rate;
    if (--active_terms_[r] == 0) {
      slope_[r] = 0.0;
    } else {
      slope_[r] -= coefficient * weight;
      if (slope_[r] <= slope_reference_[r] * kSlopeRefreshRatio) {
        slope_[r] = exact_slope(problem, r);
        slope_reference_[r] = slope_[r];
      }
    }
  }
}

double MaxMinSolver::exact_slope(const MaxMinProblem& problem, int resource) const {
  double slope = 0.0;
  for (int k = resource_begin_[resource]; k < resource_begin_[resource + 1]; ++k) {
    const int f = incidence_[k].flow;
    if (!frozen_[f]) slope += incidence_[k].coefficient * problem.weights_[f];
  }
  return slope;
}

// heap_ is a 4-ary min-heap (children of i: 4i+1..4i+4): half the depth of a binary heap, and
// the four children share a cache line or two. Sifting down dominates the solver's time.
void MaxMinSolver::sift_down(std::size_t at) {
  const std::size_t size = heap_.size();
  const Event moving = heap_[at];
  const LaterEvent later;
  for (;;) {
    const std::size_t first = 4 * at + 1;
    if (first >= size) break;
    const std::size_t end = std::min(first + 4, size);
    std::size_t best = first;
    for (std::size_t child = first + 1; child < end; ++child) {
      best = later(heap_[best], heap_[child]) ? child : best;
    }
    if (!later(moving, heap_[best])) break;
    heap_[at] = heap_[best];
    at = best;
  }
  heap_[at] = moving;
}

void MaxMinSolver::make_heap() {
  for (std::size_t i = heap_.size() / 4 + 1; i-- > 0;) {
    if (i < heap_.size()) sift_down(i);
  }
}

void MaxMinSolver::pop_top() {
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
}

MaxMinSolution solve_max_min(const MaxMinProblem& problem) {
  MaxMinSolver solver;
  return solver.solve(problem);
}

}  // namespace numatwin::model
