#include "numatwin/sim/uncertainty/sample_plan.hpp"

#include <cmath>
#include <variant>

#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"

namespace numatwin::sim {
namespace {

constexpr double kProportional = 1e-12;  // relative

// Appends to `scaled` the transfers of `base` whose cycles_per_byte is proportional to the cost
// in `other` (built at value x; base at v0); false when the plans differ in anything else.
bool compare(const Plan& base, const Plan& other, double ratio, std::vector<ScaledTransfer>& scaled, double v0) {
  if (base.steps != other.steps || base.threads.size() != other.threads.size()) return false;
  for (std::size_t t = 0; t < base.threads.size(); ++t) {
    const ThreadPlan& a = base.threads[t];
    const ThreadPlan& b = other.threads[t];
    if (a.core != b.core || a.ops.size() != b.ops.size()) return false;
    for (std::size_t o = 0; o < a.ops.size(); ++o) {
      const auto* ta = std::get_if<Transfer>(&a.ops[o]);
      const auto* tb = std::get_if<Transfer>(&b.ops[o]);
      if (ta == nullptr || tb == nullptr) {
        if (!(a.ops[o] == b.ops[o])) return false;
        continue;
      }
      if (ta->cycles_per_byte == tb->cycles_per_byte) {
        if (!(*ta == *tb)) return false;
        continue;
      }
      Transfer same = *tb;
      same.cycles_per_byte = ta->cycles_per_byte;
      if (!(same == *ta)) return false;  // more than the core work changed
      const double expected = ta->cycles_per_byte * ratio;
      if (!(ta->cycles_per_byte > 0.0) || std::abs(tb->cycles_per_byte - expected) > kProportional * expected) return false;
      scaled.push_back(ScaledTransfer{t, o, ta->cycles_per_byte / v0});
    }
  }
  return true;
}

}  // namespace

void SamplePlan::apply(Plan& target, double value) const {
  for (const ScaledTransfer& s : scaled) {
    std::get<Transfer>(target.threads[s.thread].ops[s.op]).cycles_per_byte = s.cycles_per_byte_per_unit * value;
  }
}

std::optional<SamplePlan> rate_only_sample_plan(const model::Topology& topology, const WorkloadSpec& spec, const Plan& base,
                                                const std::string& cost, double lowest, double highest) {
  const double v0 = cost_field(spec.costs, cost);
  if (!(v0 > 0.0) || !std::isfinite(v0) || !(lowest > 0.0) || !(highest >= lowest) || !std::isfinite(highest)) return std::nullopt;
  SamplePlan out;
  out.cost = cost;
  // Both ends and the middle (on a log scale, as the draws): three plans built instead of one per sample.
  const double middle = std::sqrt(lowest * highest);
  bool first = true;
  for (const double x : {lowest, middle, highest}) {
    WorkloadSpec at = spec;
    cost_field(at.costs, cost) = x;
    std::vector<ScaledTransfer> scaled;
    if (!compare(base, build_plan(topology, at), x / v0, scaled, v0)) return std::nullopt;
    if (x != v0) {
      // Every end must scale the same transfers (a transfer equal at one end and not at another
      // is not proportional); a draw equal to the spec's value shows none.
      if (first) {
        out.scaled = std::move(scaled);
        first = false;
      } else if (scaled.size() != out.scaled.size()) {
        return std::nullopt;
      } else {
        for (std::size_t i = 0; i < scaled.size(); ++i) {
          if (scaled[i].thread != out.scaled[i].thread || scaled[i].op != out.scaled[i].op) return std::nullopt;
        }
      }
    }
  }
  if (first || out.scaled.empty()) return std::nullopt;
  out.plan = base;
  return out;
}

}  // namespace numatwin::sim
