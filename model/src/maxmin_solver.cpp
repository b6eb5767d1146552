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
  if (std::isnan(rate_bound) || rate_bound < 0.0) {
    throw_invalid(std::string(where) + ": flow " + std::to_string(flow) +
                  ": rate bound must be >= 0 (or +infinity for none), got " + to_text(rate_bound));
  }
}

void check_weight(double weight, const char* where, int flow) {
  if (!std::isfinite(weight) || weight <= 0.0) {
    throw_invalid(std::string(where) + ": flow " + std::to_string(flow) +
                  ": weight must be finite and > 0, got " + to_text(weight));
  }
}

// Min-heap order on (level, id): bound events (negative ids) go first at equal levels.
struct LaterEvent {
  template <typename Event>
  bool operator()(const Event& a, const Event& b) const {
    return a.level > b.level || (a.level == b.level && a.id > b.id);
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
  for (std::size_t term = 0; term < uses.size(); ++term) {
    const ResourceUse& use = uses[term];
    if (use.resource < 0 || use.resource >= resource_count()) {
      throw_invalid("add_flow: flow " + std::to_string(flow) + ", term " + std::to_string(term) +
                    ": resource index " + std::to_string(use.resource) + " out of range [0, " +
                    std::to_string(resource_count()) + ")");
    }
    if (!std::isfinite(use.coefficient) || use.coefficient <= 0.0) {
      throw_invalid("add_flow: flow " + std::to_string(flow) + ", term " + std::to_string(term) +
                    " (resource " + std::to_string(use.resource) +
                    "): coefficient must be finite and > 0, got " + to_text(use.coefficient));
    }
  }
  terms_.insert(terms_.end(), uses.begin(), uses.end());
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

const MaxMinSolution& MaxMinSolver::solve(const MaxMinProblem& problem) {
  const std::vector<double>& capacities = problem.capacities_;
  const std::vector<int>& flow_begin = problem.flow_begin_;
  const std::vector<ResourceUse>& terms = problem.terms_;
  const std::vector<double>& weights = problem.weights_;
  const std::vector<double>& rate_bounds = problem.rate_bounds_;
  const int resource_count = problem.resource_count();
  const int flow_count = problem.flow_count();
  const auto resources = static_cast<std::size_t>(resource_count);
  const auto flows = static_cast<std::size_t>(flow_count);

  MaxMinSolution& out = solution_;
  out.rates.assign(flows, 0.0);
  out.bottlenecks.assign(flows, MaxMinSolution::kNoBottleneck);
  frozen_.assign(flows, 0);

  // Transposed incidence by counting sort; per-resource slope S_r and unfrozen term counts.
  resource_begin_.assign(resources + 1, 0);
  for (const ResourceUse& use : terms) ++resource_begin_[use.resource + 1];
  for (std::size_t r = 0; r < resources; ++r) resource_begin_[r + 1] += resource_begin_[r];
  incidence_.resize(terms.size());
  active_terms_.assign(resources, 0);  // also the fill cursor of each resource's row
  slope_.assign(resources, 0.0);
  for (int f = 0; f < flow_count; ++f) {
    const double weight = weights[f];
    for (int k = flow_begin[f]; k < flow_begin[f + 1]; ++k) {
      const int r = terms[k].resource;
      incidence_[resource_begin_[r] + active_terms_[r]++] = {f, terms[k].coefficient};
      slope_[r] += terms[k].coefficient * weight;
    }
  }
  slope_reference_.assign(slope_.begin(), slope_.end());
  fixed_load_.assign(resources, 0.0);
  versions_.assign(resources, 0);
  is_dirty_.assign(resources, 0);
  dirty_.clear();
  heap_.clear();

  // Initial events: every resource with flows, every finite bound. Flows without terms do not
  // interact with anything and are settled at once.
  for (int f = 0; f < flow_count; ++f) {
    const double bound = rate_bounds[f];
    if (flow_begin[f] == flow_begin[f + 1]) {
      frozen_[f] = 1;
      out.rates[f] = bound;  // +infinity when unbounded
      out.bottlenecks[f] =
          std::isinf(bound) ? MaxMinSolution::kNoBottleneck : MaxMinSolution::kRateBound;
    } else if (!std::isinf(bound)) {
      heap_.push_back({bound / weights[f], ~f, 0});
    }
  }
  for (int r = 0; r < resource_count; ++r) {
    if (active_terms_[r] > 0) heap_.push_back({capacities[r] / slope_[r], r, 0});
  }
  std::make_heap(heap_.begin(), heap_.end(), LaterEvent{});

  double level = 0.0;
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), LaterEvent{});
    const Event event = heap_.back();
    heap_.pop_back();
    if (event.id >= 0) {
      const int r = event.id;
      if (event.version != versions_[r] || active_terms_[r] == 0) continue;  // stale
      level = std::max(level, event.level);
      for (int k = resource_begin_[r]; k < resource_begin_[r + 1]; ++k) {
        const int f = incidence_[k].flow;
        if (!frozen_[f]) freeze(problem, f, weights[f] * level, r);
      }
    } else {
      const int f = ~event.id;
      if (frozen_[f]) continue;
      level = std::max(level, event.level);
      freeze(problem, f, rate_bounds[f], MaxMinSolution::kRateBound);
    }
    push_dirty_resources(problem);
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
    if (!is_dirty_[r]) {
      is_dirty_[r] = 1;
      dirty_.push_back(r);
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

void MaxMinSolver::push_dirty_resources(const MaxMinProblem& problem) {
  for (const int r : dirty_) {
    is_dirty_[r] = 0;
    ++versions_[r];
    if (active_terms_[r] == 0) continue;
    // Below the current level when rounding left L_r a hair above c_r: r saturates at once.
    const double level = (problem.capacities_[r] - fixed_load_[r]) / slope_[r];
    heap_.push_back({level, r, versions_[r]});
    std::push_heap(heap_.begin(), heap_.end(), LaterEvent{});
  }
  dirty_.clear();
}

MaxMinSolution solve_max_min(const MaxMinProblem& problem) {
  MaxMinSolver solver;
  return solver.solve(problem);
}

}  // namespace numatwin::model
