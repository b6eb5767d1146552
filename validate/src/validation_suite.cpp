#include "numatwin/validate/validation_suite.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace numatwin::validate {
namespace {

sim::WorkloadSpec base_spec(sim::WorkloadKind kind, int threads) {
  sim::WorkloadSpec s;
  s.kind = kind;
  s.threads = threads;
  s.placement.kind = sim::PlacementKind::kDense;
  s.memory.kind = sim::MemoryPolicyKind::kFirstTouch;
  s.memory.init = sim::InitThreads::kWorkers;
  return s;
}

// A cost the fit may change: a name and where it lives.
struct Parameter {
  const char* name;
  double* (*field)(KernelCosts&);
  double smallest;  // the model's lower bound (check_workload)
};

const Parameter kParameters[] = {
    {"cycles_per_element", [](KernelCosts& c) { return &c.cycles_per_element; }, 0.01},
    {"scan_cycles_per_tuple", [](KernelCosts& c) { return &c.operators.scan_cycles_per_tuple; }, 0.01},
    {"hash_cycles_per_tuple", [](KernelCosts& c) { return &c.operators.hash_cycles_per_tuple; }, 0.01},
    {"random_lines_in_flight", [](KernelCosts& c) { return &c.operators.random_lines_in_flight; }, 1.0},
    {"llc_hit_ns", [](KernelCosts& c) { return &c.operators.llc_hit_ns; }, 0.1},
    {"private_hit_ns", [](KernelCosts& c) { return &c.operators.private_hit_ns; }, 0.1},
    {"shared_line_transfer_ns", [](KernelCosts& c) { return &c.operators.shared_line_transfer_ns; }, 0.1},
    {"sort_cycles_per_comparison", [](KernelCosts& c) { return &c.operators.sort_cycles_per_comparison; }, 0.01},
    {"merge_cycles_per_tuple", [](KernelCosts& c) { return &c.operators.merge_cycles_per_tuple; }, 0.01},
};

}  // namespace

std::vector<sim::WorkloadSpec> standard_suite(const model::Topology& topology, const SuiteOptions& o) {
  (void)topology;
  if (o.threads < 1) throw std::invalid_argument("suite: --max-threads must be >= 1");
  if (!(o.scale > 0.0)) throw std::invalid_argument("suite: scale must be > 0");
  std::vector<int> counts{1};
  if (o.threads > 1) counts.push_back(o.threads);
  std::vector<sim::WorkloadSpec> suite;
  auto add = [&](const sim::WorkloadSpec& s) { suite.push_back(s); };
  const double element_aligned = 8.0 * counts.back() * counts.back();
  const double shuffle_bytes = std::max(element_aligned, std::round(o.shuffle_bytes * o.scale / element_aligned) * element_aligned);
  for (int t : counts) {
    struct Variant {
      sim::WorkloadKind kind;
      sim::ShuffleAlgorithm algorithm;
      sim::SyncMode sync;
    };
    for (const Variant& v : {Variant{sim::WorkloadKind::kShuffle, sim::ShuffleAlgorithm::kNaive, sim::SyncMode::kTight},
                             Variant{sim::WorkloadKind::kShuffle, sim::ShuffleAlgorithm::kRing, sim::SyncMode::kTight},
                             Variant{sim::WorkloadKind::kShuffle, sim::ShuffleAlgorithm::kRing, sim::SyncMode::kLoose},
                             Variant{sim::WorkloadKind::kShuffle, sim::ShuffleAlgorithm::kCoordinatedRandom, sim::SyncMode::kLoose},
                             Variant{sim::WorkloadKind::kMigration, sim::ShuffleAlgorithm::kRing, sim::SyncMode::kTight},
                             Variant{sim::WorkloadKind::kMigrationAndCopy, sim::ShuffleAlgorithm::kRing, sim::SyncMode::kTight}}) {
      sim::WorkloadSpec s = base_spec(v.kind, t);
      s.algorithm = v.algorithm;
      s.sync = v.sync;
      s.total_bytes = shuffle_bytes;
      add(s);
    }
    const double records = std::max(1e4, std::round(o.operator_records * o.scale));
    const double build = std::max(1e3, std::round(o.build_records * o.scale));
    for (sim::PartitionStrategy strategy : {sim::PartitionStrategy::kShuffle, sim::PartitionStrategy::kMigration}) {
      sim::WorkloadSpec s = base_spec(sim::WorkloadKind::kPartitionedAggregation, t);
      s.strategy = strategy;
      s.algorithm = sim::ShuffleAlgorithm::kRing;
      s.data.records = records;
      s.data.keys.groups = 1e5;
      add(s);
    }
    for (double groups : {1e3, 1e6}) {
      for (const char* keys : {"uniform", "zipf:0.5"}) {
        sim::WorkloadSpec s = base_spec(sim::WorkloadKind::kCountAggregation, t);
        s.data.records = records;
        s.data.keys = sim::parse_key_distribution(keys, groups <= 1e3 ? groups : std::round(groups * std::min(1.0, 4.0 * o.scale)));
        add(s);
      }
    }
    sim::WorkloadSpec median = base_spec(sim::WorkloadKind::kMedianAggregation, t);
    median.data.records = records;
    median.data.keys = sim::parse_key_distribution("uniform", 1e5);
    add(median);
    for (sim::WorkloadKind kind : {sim::WorkloadKind::kHashJoin, sim::WorkloadKind::kIndexJoin}) {
      sim::WorkloadSpec s = base_spec(kind, t);
      s.data.records = records;
      s.data.build_records = build;
      s.data.keys = sim::parse_key_distribution("uniform", build);
      add(s);
      if (kind == sim::WorkloadKind::kHashJoin) {  // the radix join, same data
        s.join_algorithm = sim::JoinAlgorithm::kRadix;
        add(s);
      }
    }
  }
  // The OS default at T threads: unpinned, first touch by one loader thread.
  for (sim::WorkloadKind kind : {sim::WorkloadKind::kCountAggregation, sim::WorkloadKind::kHashJoin}) {
    sim::WorkloadSpec s = base_spec(kind, counts.back());
    s.placement.kind = sim::PlacementKind::kNone;
    s.memory.init = sim::InitThreads::kLoader;
    s.data.records = std::max(1e4, std::round(o.operator_records * o.scale));
    s.data.build_records = std::max(1e3, std::round(o.build_records * o.scale));
    s.data.keys = sim::parse_key_distribution("uniform", kind == sim::WorkloadKind::kHashJoin ? s.data.build_records : 1e6 * std::min(1.0, o.scale * 4));
    add(s);
  }
  return suite;
}

std::vector<sim::WorkloadSpec> switch_subset(const std::vector<sim::WorkloadSpec>& suite, int threads) {
  std::vector<sim::WorkloadSpec> out;
  for (const sim::WorkloadSpec& s : suite) {
    if (s.threads != threads || s.placement.kind != sim::PlacementKind::kDense || s.memory.init != sim::InitThreads::kWorkers) continue;
    const bool count = s.kind == sim::WorkloadKind::kCountAggregation && s.data.keys.distribution == sim::KeyDistribution::kUniform &&
                       s.data.keys.groups > 1e3;
    const bool hash_join = s.kind == sim::WorkloadKind::kHashJoin && s.join_algorithm == sim::JoinAlgorithm::kNonPartitioned;
    if (count || s.kind == sim::WorkloadKind::kMedianAggregation || hash_join) out.push_back(s);
  }
  return out;
}

KernelCosts costs_of(const sim::WorkloadSpec& spec) { return {spec.costs, spec.cycles_per_element}; }

void apply_costs(const KernelCosts& costs, sim::WorkloadSpec& spec) {
  spec.costs = costs.operators;
  spec.cycles_per_element = costs.cycles_per_element;
}

std::vector<double> cross_validated_errors(const model::Topology& topology, const std::vector<KernelComparison>& comparisons,
                                           int folds,
                                           const std::function<Prediction(const model::Topology&, const sim::WorkloadSpec&)>& predict) {
  if (folds < 2) throw std::invalid_argument("cross-validation needs at least 2 folds");
  std::vector<double> errors(comparisons.size(), 0.0);
  for (int f = 0; f < folds; ++f) {
    std::vector<bool> training(comparisons.size());
    bool any_test = false;
    bool any_training = false;
    for (std::size_t i = 0; i < comparisons.size(); ++i) {
      training[i] = static_cast<int>(i % static_cast<std::size_t>(folds)) != f;
      (training[i] ? any_training : any_test) = true;
    }
    if (!any_test || !any_training) continue;
    const CostFit fit = fit_kernel_costs(topology, comparisons, training, predict);
    for (std::size_t i = 0; i < comparisons.size(); ++i)
      if (!training[i]) errors[i] = fit.errors_after[i];
  }
  return errors;
}

double median_abs(std::vector<double> values) {
  if (values.empty()) return 0.0;
  for (double& v : values) v = std::abs(v);
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

CostFit fit_kernel_costs(const model::Topology& topology, const std::vector<KernelComparison>& comparisons,
                         const std::vector<bool>& training,
                         const std::function<Prediction(const model::Topology&, const sim::WorkloadSpec&)>& predict) {
  if (comparisons.empty()) throw std::invalid_argument("cost fit: no comparisons");
  if (training.size() != comparisons.size()) throw std::invalid_argument("cost fit: one training flag per comparison");
  CostFit fit;
  fit.before = costs_of(comparisons.front().spec);
  for (std::size_t i = 0; i < comparisons.size(); ++i) (training[i] ? fit.training_runs : fit.held_out_runs) += 1;
  if (fit.training_runs == 0) throw std::invalid_argument("cost fit: no training run");

  auto errors_with = [&](const KernelCosts& costs, bool training_only) {
    std::vector<double> errors;
    for (std::size_t i = 0; i < comparisons.size(); ++i) {
      if (training_only && !training[i]) continue;
      sim::WorkloadSpec spec = comparisons[i].spec;
      apply_costs(costs, spec);
      const double predicted = predict(topology, spec).seconds;
      errors.push_back((predicted - comparisons[i].measured.seconds) / comparisons[i].measured.seconds);
    }
    return errors;
  };
  auto objective = [&](const KernelCosts& costs) {
    double sum = 0.0;
    for (double e : errors_with(costs, true)) {
      const double l = std::log1p(std::max(e, -0.999999));
      sum += std::abs(l);
    }
    return sum;
  };

  KernelCosts best = fit.before;
  double best_value = objective(best);
  std::vector<bool> matters(std::size(kParameters), false);
  for (std::size_t p = 0; p < std::size(kParameters); ++p) {
    KernelCosts probe = best;
    *kParameters[p].field(probe) *= 2.0;
    matters[p] = std::abs(objective(probe) - best_value) > 1e-12 * (1.0 + best_value);
    if (!matters[p]) {
      char text[160];
      std::snprintf(text, sizeof text, "%s: no training run depends on it; kept at %g", kParameters[p].name,
                    *kParameters[p].field(best));
      fit.notes.emplace_back(text);
    }
  }
  const double golden = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int sweep = 0; sweep < 8; ++sweep) {
    const double value_before_sweep = best_value;
    for (std::size_t p = 0; p < std::size(kParameters); ++p) {
      if (!matters[p]) continue;
      const double start = std::log(*kParameters[p].field(best));
      double a = std::max(start - std::log(10.0), std::log(kParameters[p].smallest));
      double b = start + std::log(10.0);
      auto value_at = [&](double log_x) {
        KernelCosts trial = best;
        *kParameters[p].field(trial) = std::exp(log_x);
        return objective(trial);
      };
      double c = b - golden * (b - a);
      double d = a + golden * (b - a);
      double fc = value_at(c);
      double fd = value_at(d);
      for (int it = 0; it < 24; ++it) {
        if (fc < fd) {
          b = d;
          d = c;
          fd = fc;
          c = b - golden * (b - a);
          fc = value_at(c);
        } else {
          a = c;
          c = d;
          fc = fd;
          d = a + golden * (b - a);
          fd = value_at(d);
        }
      }
      const double x = 0.5 * (a + b);
      if (value_at(x) < best_value) {
        *kParameters[p].field(best) = std::exp(x);
        best_value = objective(best);
      }
    }
    if (value_before_sweep - best_value <= 1e-4 * value_before_sweep) break;  // converged
  }
  fit.after = best;
  fit.errors_before = errors_with(fit.before, false);
  fit.errors_after = errors_with(fit.after, false);
  return fit;
}

}  // namespace numatwin::validate
