#include "numatwin/sim/search/advise_system.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "numatwin/model/allocator_costs.hpp"
#include "numatwin/sim/plan/allocation_costs.hpp"

namespace numatwin::sim {
namespace {

std::string format(const char* pattern, double a, double b = 0.0, double c = 0.0, double d = 0.0) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, pattern, a, b, c, d);
  return buffer;
}

std::string pages_name(model::HugePages h) { return std::string(model::huge_pages_name(h)); }

WorkloadSpec with_allocator(const model::Topology& t, WorkloadSpec s, const std::string& allocator) {
  s.allocator = allocator;
  const model::AllocatorCosts* costs = model::find_allocator_costs(t.allocator_costs, allocator);
  s.allocator_costs = costs != nullptr ? std::optional<model::AllocatorCosts>(*costs) : std::nullopt;
  return s;
}

bool balancing_applies(const model::Topology& t, const WorkloadSpec& spec, int executions) {
  return executions > 1 && t.numa_nodes().size() > 1 && !is_shuffle_family(spec.kind);
}

// One candidate over all executions: balancing on through its model, off as executions x one run.
SystemCandidate evaluate(const model::Topology& t, const WorkloadSpec& spec, bool balancing, const SystemAdviceOptions& o) {
  SystemCandidate c;
  c.placement = evaluate_candidate(t, spec);
  c.numa_balancing = balancing;
  if (balancing && balancing_applies(t, spec, o.executions)) {
    const NumaBalancingRun run = simulate_numa_balancing(t, spec, o.balancing, o.executions);
    c.time_s = run.total_time_s();
    c.migrated_bytes = run.migrated_bytes();
    if (!run.executions.empty()) c.placement.local_access_ratio = run.executions.back().local_access_ratio;
  } else {
    c.time_s = c.placement.time_s * o.executions;
  }
  return c;
}

AllocationSeconds allocation_of(const WorkloadSpec& spec) {
  if (spec.allocation == Allocation::kPerGroup) return per_group_allocation(spec, spec.threads);
  if (spec.allocation == Allocation::kPerBucket) return per_bucket_allocation(spec, spec.threads);
  return {};
}

// "jemalloc: malloc 38 ns vs 61 ns (glibc) at 2 threads (32 B class), 2.1e+06 allocations and
// 1e+06 frees: 0.031 s vs 0.052 s of allocator calls".
std::string allocator_note(const WorkloadSpec& s, const WorkloadSpec& base) {
  const AllocationSeconds a = allocation_of(s);
  const AllocationSeconds b = allocation_of(base);
  const auto* ca = s.allocator_costs ? &*s.allocator_costs : nullptr;
  const auto* cb = base.allocator_costs ? &*base.allocator_costs : nullptr;
  const model::AllocatorCostAt at = model::allocator_cost_at(ca, s.threads, 32.0);
  const model::AllocatorCostAt bt = model::allocator_cost_at(cb, base.threads, 32.0);
  const bool same = s.allocator == base.allocator;
  std::string out = s.allocator + ": malloc " + format("%.3g ns", at.malloc_ns) +
                    (same ? "" : " vs " + format("%.3g ns", bt.malloc_ns) + " (" + base.allocator + ")") + " at " +
                    std::to_string(s.threads) + " threads (32 B class), " +
                    format("%.3g allocations and %.3g frees: %.3g s", a.allocations, a.frees, a.allocate_s + a.free_s) +
                    (same ? "" : format(" vs %.3g s", b.allocate_s + b.free_s)) + " of allocator calls";
  if (a.rests_on_defaults) out += " (" + s.allocator + "'s costs: defaults, not measured)";
  return out;
}

std::string huge_pages_note(model::HugePages h) {
  switch (h) {
    case model::HugePages::kOn: return "every buffer on 2 MiB pages";
    case model::HugePages::kOff: return "every buffer on 4 KiB pages";
    case model::HugePages::kMadvise: return "the placed datasets on 2 MiB pages, the allocator's heap on 4 KiB";
  }
  return "";
}

bool same_placement(const WorkloadSpec& a, const WorkloadSpec& b) {
  return a.kind == b.kind && a.algorithm == b.algorithm && a.sync == b.sync && a.strategy == b.strategy &&
         a.join_algorithm == b.join_algorithm && a.threads == b.threads && a.placement.kind == b.placement.kind &&
         a.memory.kind == b.memory.kind && a.memory.init == b.memory.init && a.memory.nodes == b.memory.nodes;
}

// Keeps the default (first in `values`) and the fastest others that are faster than it alone
// (by more than 0.1 %: a tie changes a setting for nothing), `keep` in all.
template <typename T>
void keep_faster(std::vector<std::pair<double, T>>& values, double default_s, int keep) {
  std::vector<std::pair<double, T>> kept = {values.front()};
  std::vector<std::pair<double, T>> others(values.begin() + 1, values.end());
  std::stable_sort(others.begin(), others.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& v : others)
    if (static_cast<int>(kept.size()) < keep && v.first < default_s * (1.0 - 1e-3)) kept.push_back(v);
  values = kept;
}

}  // namespace

std::string system_configuration_text(const model::Topology& t, const SystemCandidate& c) {
  const WorkloadSpec& s = c.placement.spec;
  std::string out;
  if (s.allocation != Allocation::kPreallocated) out += s.allocator + ", ";
  out += "huge pages " + pages_name(s.huge_pages) + ", balancing " + (c.numa_balancing ? "on" : "off") + ", ";
  return out + configuration_text(t, s);
}

SystemAdvice advise_system(const model::Topology& t, const WorkloadSpec& spec, const SystemAdviceOptions& o) {
  if (o.executions < 1) throw std::invalid_argument("--executions must be >= 1");
  if (o.top_placements < 1 || o.top_allocators < 1 || o.top_huge_pages < 1)
    throw std::invalid_argument("advise: keep at least one value of each factor");
  SystemAdvice advice;
  advice.os_default = o.os_default;
  advice.os_default.allocator = "glibc";
  const bool allocates = spec.allocation != Allocation::kPreallocated;
  const bool vary_balancing = balancing_applies(t, spec, o.executions);
  if (advice.os_default.numa_balancing && !vary_balancing) advice.os_default.numa_balancing = false;  // nothing to balance

  // The default: glibc, the host's pages, balancing as given, unpinned, first touch by a loader.
  WorkloadSpec base = with_allocator(t, spec, "glibc");
  base.huge_pages = advice.os_default.huge_pages;
  const Advice placements = advise(t, base, o.search);
  advice.simulated += placements.evaluated;
  const WorkloadSpec os_spec = placements.os_default.spec;
  advice.default_candidate = evaluate(t, os_spec, advice.os_default.numa_balancing, o);
  ++advice.simulated;
  const double default_s = advice.default_candidate.time_s;

  // 1. placement x policy: the best distinct configurations, and the default's.
  std::vector<AdviceCandidate> kept_placements;
  for (const AdviceCandidate& c : placements.ranked) {
    if (static_cast<int>(kept_placements.size()) >= o.top_placements) break;
    const bool seen = std::any_of(kept_placements.begin(), kept_placements.end(),
                                  [&](const AdviceCandidate& k) { return same_placement(k.spec, c.spec); });
    if (!seen) kept_placements.push_back(c);
  }
  if (std::none_of(kept_placements.begin(), kept_placements.end(),
                   [&](const AdviceCandidate& k) { return same_placement(k.spec, os_spec); }))
    kept_placements.push_back(placements.os_default);
  advice.search.push_back("placement x memory policy x threads x algorithm: " + std::to_string(placements.evaluated) + " of " +
                          std::to_string(placements.candidates) +
                          " configurations simulated (the others do not fit the spec, or --budget ran out), the best " +
                          std::to_string(kept_placements.size()) + " (the default included) kept");

  // 2. allocator, from the default.
  std::vector<std::string> allocators = {"glibc"};
  for (const std::string& a : o.allocators)
    if (std::find(allocators.begin(), allocators.end(), a) == allocators.end()) allocators.push_back(a);
  std::vector<std::pair<double, std::string>> allocator_times;
  if (allocates) {
    for (const std::string& a : allocators) {
      const WorkloadSpec s = with_allocator(t, os_spec, a);
      const double time_s = evaluate(t, s, advice.os_default.numa_balancing, o).time_s;
      ++advice.simulated;
      allocator_times.emplace_back(time_s, a);
      advice.trials.push_back({"allocator", a, time_s, false, a == "glibc" ? allocator_note(s, s) : allocator_note(s, os_spec)});
      if (!s.allocator_costs) advice.rests_on_defaults.push_back(a + "'s allocator costs (no /allocator_costs entry)");
    }
    keep_faster(allocator_times, default_s, o.top_allocators);
    advice.search.push_back("allocator: " + std::to_string(allocators.size()) + " simulated from the default; kept: the default and the fastest faster than it, " +
                            std::to_string(allocator_times.size()) + " in all");
  } else {
    allocator_times.emplace_back(default_s, "glibc");
    advice.search.push_back("allocator: not varied: the spec preallocates (--allocation preallocated), no malloc in the run");
  }
  for (FactorTrial& f : advice.trials)
    for (const auto& [time_s, name] : allocator_times) f.kept = f.kept || (f.factor == "allocator" && f.value == name);

  // 3. huge pages, from the default (the default setting first: it wins ties).
  std::vector<model::HugePages> pages = {advice.os_default.huge_pages};
  for (model::HugePages h : {model::HugePages::kOn, model::HugePages::kOff, model::HugePages::kMadvise})
    if (h != advice.os_default.huge_pages) pages.push_back(h);
  std::vector<std::pair<double, model::HugePages>> page_times;
  for (model::HugePages h : pages) {
    WorkloadSpec s = os_spec;
    s.huge_pages = h;
    const double time_s = h == advice.os_default.huge_pages ? default_s : evaluate(t, s, advice.os_default.numa_balancing, o).time_s;
    if (h != advice.os_default.huge_pages) ++advice.simulated;
    page_times.emplace_back(time_s, h);
    advice.trials.push_back({"huge pages", pages_name(h), time_s, false, huge_pages_note(h)});
  }
  keep_faster(page_times, default_s, o.top_huge_pages);
  for (FactorTrial& f : advice.trials)
    for (const auto& [time_s, h] : page_times) f.kept = f.kept || (f.factor == "huge pages" && f.value == pages_name(h));
  advice.search.push_back("huge pages: on, off, madvise simulated from the default; kept: the default and the fastest faster "
                          "than it, " + std::to_string(page_times.size()) + " in all");

  // 4. balancing.
  std::vector<bool> balancing = {advice.os_default.numa_balancing};
  if (vary_balancing) {
    balancing.push_back(!advice.os_default.numa_balancing);
    for (bool b : balancing) {
      const double time_s = b == advice.os_default.numa_balancing ? default_s : evaluate(t, os_spec, b, o).time_s;
      if (b != advice.os_default.numa_balancing) ++advice.simulated;
      advice.trials.push_back({"balancing", b ? "on" : "off", time_s, true,
                               "over " + std::to_string(o.executions) + " executions (decided with the memory policy: both kept)"});
    }
    advice.search.push_back("balancing: on and off, both kept (it moves first-touch pages only: it depends on the policy)");
    advice.rests_on_defaults.push_back("balancing's hinting-fault cost (" + format("%g us", o.balancing.hinting_fault_us) +
                                       ", not measured) and the kernel's scan defaults");
  } else {
    advice.search.push_back(std::string("balancing: not varied (") +
                            (is_shuffle_family(spec.kind)      ? "shuffles are outside the balancing model"
                             : t.numa_nodes().size() < 2      ? "one NUMA node: no page can move"
                                                               : "one execution: give --executions N") +
                            "), " + (advice.os_default.numa_balancing ? "on" : "off"));
  }

  // 5. the combinations.
  advice.full_product = placements.candidates * static_cast<int>(allocates ? allocators.size() : 1) * 3 * (vary_balancing ? 2 : 1);
  advice.ranked.push_back(advice.default_candidate);
  for (const AdviceCandidate& p : kept_placements) {
    for (const auto& [alloc_s, allocator] : allocator_times) {
      for (const auto& [page_s, h] : page_times) {
        for (bool b : balancing) {
          WorkloadSpec s = with_allocator(t, p.spec, allocator);
          s.huge_pages = h;
          if (same_placement(s, os_spec) && allocator == "glibc" && h == advice.os_default.huge_pages &&
              b == advice.os_default.numa_balancing)
            continue;  // the default, already ranked
          if (o.search.stop(advice.simulated)) break;
          try {
            SystemCandidate c = evaluate(t, s, b, o);
            c.placement.reason = p.reason;
            advice.ranked.push_back(c);
            ++advice.simulated;
          } catch (const std::invalid_argument&) {
            // A combination the model cannot run (e.g. data that no longer fits): not a candidate.
          }
        }
      }
    }
  }
  advice.search.push_back("combinations: " + std::to_string(advice.ranked.size()) + " ranked; " + std::to_string(advice.simulated) +
                          " simulations in all, against " + std::to_string(advice.full_product) + " in the full product");
  std::stable_sort(advice.ranked.begin(), advice.ranked.end(),
                   [](const SystemCandidate& a, const SystemCandidate& b) { return a.time_s < b.time_s; });

  // Reasons: what differs from the default, and why it helps in the model.
  const auto factor_time = [&](const std::string& factor, const std::string& value) {
    for (const FactorTrial& f : advice.trials)
      if (f.factor == factor && f.value == value) return f.time_s;
    return default_s;
  };
  for (SystemCandidate& c : advice.ranked) {
    c.speedup = default_s / c.time_s;
    c.reasons.clear();
    const WorkloadSpec& s = c.placement.spec;
    if (allocates && s.allocator != "glibc") c.reasons.push_back(allocator_note(s, with_allocator(t, s, "glibc")));
    if (s.huge_pages != advice.os_default.huge_pages) {
      const double alone = factor_time("huge pages", pages_name(s.huge_pages));
      c.reasons.push_back("huge pages " + pages_name(s.huge_pages) + " (" + huge_pages_note(s.huge_pages) + "): " +
                          format("%+.3g s alone vs ", alone - default_s) + pages_name(advice.os_default.huge_pages) +
                          " (the TLB's page walks on the random accesses)");
    }
    if (c.numa_balancing != advice.os_default.numa_balancing) {
      c.reasons.push_back(c.numa_balancing ? format("balancing on: %.3g GB of first-touch pages moved to their workers' nodes over ",
                                                    c.migrated_bytes / 1e9) +
                                                 std::to_string(o.executions) + " executions, " +
                                                 format("last execution's local access ratio %.2f", c.placement.local_access_ratio)
                                           : "balancing off: no scans, hinting faults or page copies (the pages are placed by the policy)");
    }
    if (!same_placement(s, os_spec)) c.reasons.push_back(configuration_text(t, s) + ": " + c.placement.reason);
    if (c.reasons.empty()) c.reasons.push_back("the system default");
  }
  const model::TlbBasis tlb = model::tlb_basis(t.tlb);
  if (!tlb.defaulted.empty()) {
    std::string names;
    for (const std::string& d : tlb.defaulted) names += (names.empty() ? "" : ", ") + d;
    advice.rests_on_defaults.push_back("TLB figures (huge pages): " + names);
  }
  return advice;
}

}  // namespace numatwin::sim
