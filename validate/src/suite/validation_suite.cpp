#include "numatwin/validate/suite/validation_suite.hpp"

#include "numatwin/sim/search/scheduled_orders.hpp"
#include "numatwin/sim/schedule/shuffle_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <map>
#include <future>
#include <random>
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

// The fit minimises sum sqrt(l^2 + d^2) - d over l = log(predicted / measured): |l| for errors
// well above d (least absolute deviations), smooth near 0 so that coordinate descent does not
// stall on the kinks of |l| where two runs' errors cross.
constexpr double kSmoothing = 0.02;
constexpr int kSweeps = 16;
constexpr double kStepRange = 10.0;  // one search looks within [x / 10, x * 10] (and the bounds)

// Plausible ranges: cycles for loops of a few instructions per tuple up to a few hundred; cache
// hits between an L1 hit and a remote LLC; lines in flight up to a core's fill buffers and
// superqueue; the streaming factors within 2x of the calibration (one core) and 100x (the
// controller, of which 2 cores see only a lower bound).
const CostParameter kParameters[] = {
    {"cycles_per_element", [](KernelCosts& c) { return &c.cycles_per_element; }, 0.1, 50.0},
    {"scan_cycles_per_tuple", [](KernelCosts& c) { return &c.operators.scan_cycles_per_tuple; }, 0.1, 100.0},
    {"hash_cycles_per_tuple", [](KernelCosts& c) { return &c.operators.hash_cycles_per_tuple; }, 0.5, 300.0},
    {"join_cycles_per_tuple", [](KernelCosts& c) { return &c.operators.join_cycles_per_tuple; }, 0.5, 300.0},
    {"group_cycles_per_tuple", [](KernelCosts& c) { return &c.operators.group_cycles_per_tuple; }, 0.5, 300.0},
    {"random_lines_in_flight", [](KernelCosts& c) { return &c.operators.random_lines_in_flight; }, 1.0, 32.0},
    {"llc_hit_ns", [](KernelCosts& c) { return &c.operators.llc_hit_ns; }, 2.0, 150.0},
    {"private_hit_ns", [](KernelCosts& c) { return &c.operators.private_hit_ns; }, 0.3, 30.0},
    {"shared_line_transfer_ns", [](KernelCosts& c) { return &c.operators.shared_line_transfer_ns; }, 1.0, 500.0},
    {"atomic_update_ns", [](KernelCosts& c) { return &c.operators.atomic_update_ns; }, 0.5, 100.0},
    {"llc_usable_share", [](KernelCosts& c) { return &c.operators.llc_usable_share; }, 0.02, 1.0},
    {"filter_cycles_per_cell", [](KernelCosts& c) { return &c.operators.filter_cycles_per_cell; }, 0.1, 100.0},
    {"table_stream_share", [](KernelCosts& c) { return &c.operators.table_stream_share; }, 0.01, 1.0},
    {"filter_stream_share", [](KernelCosts& c) { return &c.operators.filter_stream_share; }, 0.01, 1.0},
    {"sort_cycles_per_comparison", [](KernelCosts& c) { return &c.operators.sort_cycles_per_comparison; }, 0.5, 100.0},
    {"select_cycles_per_value", [](KernelCosts& c) { return &c.operators.select_cycles_per_value; }, 1.0, 400.0},
    {"merge_cycles_per_tuple", [](KernelCosts& c) { return &c.operators.merge_cycles_per_tuple; }, 0.5, 100.0},
    {"partition_cycles_per_tuple", [](KernelCosts& c) { return &c.operators.partition_cycles_per_tuple; }, 0.5, 100.0},
    {"partition_join_cycles_per_tuple", [](KernelCosts& c) { return &c.operators.partition_join_cycles_per_tuple; }, 0.5, 300.0},
    {"index_cycles_per_level", [](KernelCosts& c) { return &c.operators.index_cycles_per_level; }, 0.5, 300.0},
    {"stream_scale", [](KernelCosts& c) { return &c.stream_scale; }, 0.8, 1.25},
    {"memory_bandwidth_scale", [](KernelCosts& c) { return &c.memory_bandwidth_scale; }, 0.01, 100.0},
};

double clamp_to(const CostParameter& p, double x) { return std::clamp(x, p.smallest, p.largest); }

// A run's family: its id without the thread count ("-2t-"), so that the same kernel at 1 and T
// threads is one family.
std::string family_of(const std::string& id) {
  std::string out;
  std::size_t i = 0;
  while (i < id.size()) {
    if (id[i] == '-' && i + 1 < id.size() && std::isdigit(static_cast<unsigned char>(id[i + 1]))) {
      std::size_t j = i + 1;
      while (j < id.size() && std::isdigit(static_cast<unsigned char>(id[j]))) ++j;
      if (j + 1 < id.size() && id[j] == 't' && id[j + 1] == '-') {
        out += "-";
        i = j + 1;
        continue;
      }
    }
    out += id[i++];
  }
  return out;
}

}  // namespace

std::vector<sim::WorkloadSpec> standard_suite(const model::Topology& topology, const SuiteOptions& o) {
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
    {
      // The order numatwin designs for this machine and placement (sim/schedule/shuffle_schedule.hpp),
      // measured next to naive, ring and random on the same bytes.
      sim::WorkloadSpec s = base_spec(sim::WorkloadKind::kShuffle, t);
      s.algorithm = sim::ShuffleAlgorithm::kScheduled;
      s.sync = sim::SyncMode::kTight;
      s.total_bytes = shuffle_bytes;
      s.producer_orders = sim::scheduled_orders(topology, s).producer_orders;
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
    // The subarray filter (Dominico et al.): as many cells as the operators' records, chunk
    // groups of two threads (one thread alone at 1).
    sim::WorkloadSpec subarray = base_spec(sim::WorkloadKind::kSubarray, t);
    subarray.data.records = records;
    subarray.data.threads_per_chunk = std::min(2, t);
    add(subarray);
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

std::span<const CostParameter> cost_parameters() { return kParameters; }

KernelCosts costs_of(const sim::WorkloadSpec& spec) { return {spec.costs, spec.cycles_per_element}; }

model::Topology with_stream_scales(const model::Topology& topology, const KernelCosts& costs) {
  model::Topology t = topology;
  if (costs.stream_scale == 1.0 && costs.memory_bandwidth_scale == 1.0) return t;
  for (model::Node& n : t.nodes) {
    if (n.has_cores())  // an integer count: the factor moves it in steps of one line
      n.miss_buffers_per_core = std::max(1, static_cast<int>(std::lround(n.miss_buffers_per_core * costs.stream_scale)));
    n.memory_read_bandwidth_gbps *= costs.memory_bandwidth_scale;
    if (n.memory_write_bandwidth_gbps) *n.memory_write_bandwidth_gbps *= costs.memory_bandwidth_scale;
  }
  return t;
}

void apply_costs(const KernelCosts& costs, sim::WorkloadSpec& spec) {
  spec.costs = costs.operators;
  spec.cycles_per_element = costs.cycles_per_element;
}

std::vector<double> cross_validated_errors(const model::Topology& topology, const std::vector<KernelComparison>& comparisons,
                                           int folds,
                                           const std::function<Prediction(const model::Topology&, const sim::WorkloadSpec&)>& predict,
                                           int restarts) {
  if (folds < 2) throw std::invalid_argument("cross-validation needs at least 2 folds");
  std::vector<double> errors(comparisons.size(), 0.0);
  // Fold of each run: the families (family_of) in order of first appearance take folds round
  // robin, and a family's later members take the next folds, so a kernel's runs at 1 and T
  // threads fall in different folds: each is predicted from costs fitted on the other.
  std::vector<int> fold_of(comparisons.size(), 0);
  {
    std::map<std::string, std::pair<int, int>> families;  // family -> (index, members so far)
    for (std::size_t i = 0; i < comparisons.size(); ++i) {
      auto [it, added] = families.try_emplace(family_of(comparisons[i].id), static_cast<int>(families.size()), 0);
      fold_of[i] = (it->second.first + it->second.second++) % folds;
    }
  }
  // The folds are independent fits: one thread each.
  std::vector<std::vector<bool>> trainings;
  std::vector<std::future<CostFit>> fits;
  for (int f = 0; f < folds; ++f) {
    std::vector<bool> training(comparisons.size());
    bool any_test = false;
    bool any_training = false;
    for (std::size_t i = 0; i < comparisons.size(); ++i) {
      training[i] = fold_of[i] != f;
      (training[i] ? any_training : any_test) = true;
    }
    if (!any_test || !any_training) continue;
    trainings.push_back(training);
    fits.push_back(std::async(std::launch::async, [&, training] {
      return fit_kernel_costs(topology, comparisons, training, predict, restarts);
    }));
  }
  for (std::size_t f = 0; f < fits.size(); ++f) {
    const CostFit fit = fits[f].get();
    for (std::size_t i = 0; i < comparisons.size(); ++i)
      if (!trainings[f][i]) errors[i] = fit.errors_after[i];
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
                         const std::function<Prediction(const model::Topology&, const sim::WorkloadSpec&)>& predict,
                         int restarts) {
  if (comparisons.empty()) throw std::invalid_argument("cost fit: no comparisons");
  if (restarts < 0) throw std::invalid_argument("cost fit: restarts must be >= 0");
  if (training.size() != comparisons.size()) throw std::invalid_argument("cost fit: one training flag per comparison");
  CostFit fit;
  fit.before = costs_of(comparisons.front().spec);
  for (std::size_t i = 0; i < comparisons.size(); ++i) (training[i] ? fit.training_runs : fit.held_out_runs) += 1;
  if (fit.training_runs == 0) throw std::invalid_argument("cost fit: no training run");

  const std::size_t runs = comparisons.size();
  const std::size_t parameters = std::size(kParameters);
  auto error_of = [&](std::size_t i, const KernelCosts& costs, const model::Topology& scaled) {
    sim::WorkloadSpec spec = comparisons[i].spec;
    apply_costs(costs, spec);
    const double predicted = predict(scaled, spec).seconds;
    return (predicted - comparisons[i].measured.seconds) / comparisons[i].measured.seconds;
  };
  auto errors_with = [&](const KernelCosts& costs) {
    std::vector<double> errors(runs);
    const model::Topology scaled = with_stream_scales(topology, costs);
    for (std::size_t i = 0; i < runs; ++i) errors[i] = error_of(i, costs, scaled);
    return errors;
  };
  auto objective_of = [&](const std::vector<double>& errors) {
    double sum = 0.0;
    for (std::size_t i = 0; i < runs; ++i) {
      if (!training[i]) continue;
      const double l = std::log1p(std::max(errors[i], -0.999999));
      sum += std::sqrt(l * l + kSmoothing * kSmoothing) - kSmoothing;
    }
    return sum;
  };

  // Which training runs each parameter moves: probed at a tenth and ten times its start. The
  // searches re-predict only those runs (most runs depend on a few parameters).
  std::vector<std::vector<bool>> depends(parameters, std::vector<bool>(runs, false));
  std::vector<bool> matters(parameters, false);
  {
    const std::vector<double> base = errors_with(fit.before);
    for (std::size_t p = 0; p < parameters; ++p) {
      for (const double factor : {0.1, 10.0}) {
        KernelCosts probe = fit.before;
        double& value = *kParameters[p].field(probe);
        value = clamp_to(kParameters[p], value * factor);
        const model::Topology scaled = with_stream_scales(topology, probe);
        for (std::size_t i = 0; i < runs; ++i) {
          if (!training[i] || depends[p][i]) continue;
          depends[p][i] = std::abs(error_of(i, probe, scaled) - base[i]) > 1e-12 * (1.0 + std::abs(base[i]));
        }
      }
      matters[p] = std::find(depends[p].begin(), depends[p].end(), true) != depends[p].end();
      if (!matters[p]) {
        char text[160];
        std::snprintf(text, sizeof text, "%s: no training run depends on it; kept at %g", kParameters[p].name,
                      *kParameters[p].field(fit.before));
        fit.notes.emplace_back(text);
      }
    }
  }
  const double golden = (std::sqrt(5.0) - 1.0) / 2.0;
  // Coordinate descent from `best`: golden-section search on each parameter in turn (16 steps
  // narrow a factor-of-100 bracket to 0.05 %), keeping the errors of `best`.
  auto descend = [&](KernelCosts best, double& best_value) {
    std::vector<double> errors = errors_with(best);
    best_value = objective_of(errors);
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
      const double value_before_sweep = best_value;
      for (std::size_t p = 0; p < parameters; ++p) {
        if (!matters[p]) continue;
        const double start = std::log(*kParameters[p].field(best));
        double a = std::max(start - std::log(kStepRange), std::log(kParameters[p].smallest));
        double b = std::min(start + std::log(kStepRange), std::log(kParameters[p].largest));
        std::vector<double> trial_errors;
        auto value_at = [&](double log_x) {
          KernelCosts trial = best;
          *kParameters[p].field(trial) = std::exp(log_x);
          const model::Topology scaled = with_stream_scales(topology, trial);
          trial_errors = errors;
          for (std::size_t i = 0; i < runs; ++i)
            if (depends[p][i]) trial_errors[i] = error_of(i, trial, scaled);
          return objective_of(trial_errors);
        };
        double c = b - golden * (b - a);
        double d = a + golden * (b - a);
        double fc = value_at(c);
        double fd = value_at(d);
        for (int it = 0; it < 16; ++it) {
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
        const double value = value_at(x);
        if (value < best_value) {
          *kParameters[p].field(best) = std::exp(x);
          errors = trial_errors;
          best_value = value;
        }
      }
      if (value_before_sweep - best_value <= 1e-4 * value_before_sweep) break;  // converged
    }
    return best;
  };
  // Coordinate descent stops where no single parameter helps, which need not be the optimum when
  // parameters trade against each other (say, private-cache hits against shared-line transfers):
  // descend again from `restarts` starts drawn around the best point so far (each parameter times
  // a factor within [1/4, 4], log-uniform, fixed seed) and keep the best.
  double best_value = 0.0;
  KernelCosts first = fit.before;
  for (std::size_t p = 0; p < parameters; ++p)
    if (matters[p]) *kParameters[p].field(first) = clamp_to(kParameters[p], *kParameters[p].field(first));
  KernelCosts best = descend(first, best_value);
  std::mt19937_64 random(20261122);
  std::uniform_real_distribution<double> factor(-std::log(4.0), std::log(4.0));
  for (int r = 0; r < restarts; ++r) {
    KernelCosts start = best;
    for (std::size_t p = 0; p < std::size(kParameters); ++p)
      if (matters[p]) *kParameters[p].field(start) = clamp_to(kParameters[p], *kParameters[p].field(start) * std::exp(factor(random)));
    double value = 0.0;
    const KernelCosts found = descend(start, value);
    if (value < best_value) {
      best = found;
      best_value = value;
    }
  }
  fit.after = best;
  fit.errors_before = errors_with(fit.before);
  fit.errors_after = errors_with(fit.after);
  return fit;
}

}  // namespace numatwin::validate
