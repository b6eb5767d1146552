#include "numatwin/sim/search/distinct_placements.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>

#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/search/placement_search.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

using model::NodeIndex;

// A kind of group: groups of equal size and signature; `groups` lists their thread lists.
struct GroupKind {
  int size = 0;
  double signature = 0.0;
  std::vector<std::vector<int>> groups;
  std::vector<std::vector<int>> states;  // every composition of `size` over the core nodes
  std::map<std::vector<int>, int> state_index;
};

void compositions(int total, int parts, std::vector<int>& current, std::vector<std::vector<int>>& out) {
  if (static_cast<int>(current.size()) == parts - 1) {
    current.push_back(total);
    out.push_back(current);
    current.pop_back();
    return;
  }
  for (int k = total; k >= 0; --k) {
    current.push_back(k);
    compositions(total - k, parts, current, out);
    current.pop_back();
  }
}

double log_factorial(int n) { return std::lgamma(static_cast<double>(n) + 1.0); }

// Counts are whole numbers; computed through logarithms they carry rounding: round them while a
// double still holds every integer (2^53).
double whole(double count) { return count < 9e15 ? std::round(count) : count; }

// Assignments of r labelled threads to the given nodes, at most cap[n] on node n.
double labelled_assignments(int r, const std::vector<int>& caps) {
  std::vector<double> ways(static_cast<std::size_t>(r) + 1, 0.0);  // ways[j]: j threads placed, divided by j!
  ways[0] = 1.0;
  for (int cap : caps) {
    std::vector<double> next(ways.size(), 0.0);
    for (int j = 0; j <= r; ++j) {
      if (ways[j] == 0.0) continue;
      for (int c = 0; c <= cap && j + c <= r; ++c) next[j + c] += ways[j] * std::exp(-log_factorial(c));
    }
    ways = std::move(next);
  }
  return whole(ways[r] * std::exp(log_factorial(r)));
}

class Space {
 public:
  Space(const model::Topology& t, const WorkloadSpec& spec, const DistinctPlacementOptions& options) : t_(t), spec_(spec) {
    for (std::size_t n = 0; n < t.nodes.size(); ++n) {
      if (t.nodes[n].has_cores()) {
        core_nodes_.push_back(static_cast<NodeIndex>(n));
        caps_.push_back(t.nodes[n].cores);
      }
    }
    if (spec.threads < 1 || spec.threads > std::accumulate(caps_.begin(), caps_.end(), 0)) {
      throw std::invalid_argument("--threads " + std::to_string(spec.threads) + ": placements of distinct threads put one thread per core, and " +
                                  t.name + " has " + std::to_string(t.total_cores()) + " cores");
    }
    for (const ThreadGroup& g : interchangeable_threads(spec)) {
      auto it = std::find_if(kinds_.begin(), kinds_.end(), [&](const GroupKind& k) {
        return k.size == static_cast<int>(g.threads.size()) && k.signature == g.signature;
      });
      if (it == kinds_.end()) {
        kinds_.push_back(GroupKind{static_cast<int>(g.threads.size()), g.signature, {}, {}, {}});
        it = kinds_.end() - 1;
      }
      it->groups.push_back(g.threads);
    }
    for (GroupKind& k : kinds_) {
      std::vector<int> current;
      compositions(k.size, static_cast<int>(core_nodes_.size()), current, k.states);
      for (std::size_t s = 0; s < k.states.size(); ++s) k.state_index[k.states[s]] = static_cast<int>(s);
    }
    // Automorphisms as permutations of the core nodes' positions.
    bool complete = true;
    const auto group = machine_automorphisms(t, spec.memory.nodes, options.max_automorphisms, complete);
    symmetry_complete_ = complete;
    std::vector<int> position(t.nodes.size(), -1);
    for (std::size_t i = 0; i < core_nodes_.size(); ++i) position[core_nodes_[i]] = static_cast<int>(i);
    for (const auto& image : group) {
      std::vector<int> p(core_nodes_.size());
      for (std::size_t i = 0; i < core_nodes_.size(); ++i) p[i] = position[image[core_nodes_[i]]];
      perms_.push_back(p);
    }
  }

  // A class: per kind, the sorted state indices of its groups.
  using Class = std::vector<std::vector<int>>;

  [[nodiscard]] Class canonical(const Class& c) const {
    Class best;
    bool first = true;
    for (const std::vector<int>& p : perms_) {
      Class image(c.size());
      for (std::size_t k = 0; k < c.size(); ++k) {
        for (int s : c[k]) {
          std::vector<int> moved(core_nodes_.size(), 0);
          for (std::size_t i = 0; i < core_nodes_.size(); ++i) moved[p[i]] = kinds_[k].states[s][i];
          image[k].push_back(kinds_[k].state_index.at(moved));
        }
        std::sort(image[k].begin(), image[k].end());
      }
      if (first || image < best) best = std::move(image);
      first = false;
    }
    return best;
  }

  // prod over kinds of G! / prod_s m_s!, times prod over groups of k! / prod_n c_n! (header).
  [[nodiscard]] double multiplicity(const Class& c) const {
    double log_m = 0.0;
    for (std::size_t k = 0; k < c.size(); ++k) {
      log_m += log_factorial(static_cast<int>(c[k].size()));
      for (std::size_t i = 0; i < c[k].size();) {
        std::size_t j = i;
        while (j < c[k].size() && c[k][j] == c[k][i]) ++j;
        log_m -= log_factorial(static_cast<int>(j - i));
        i = j;
      }
      for (int s : c[k]) {
        log_m += log_factorial(kinds_[k].size);
        for (int count : kinds_[k].states[s]) log_m -= log_factorial(count);
      }
    }
    return whole(std::exp(log_m));
  }

  // The representative: thread -> node, groups of a kind taking its states in order.
  [[nodiscard]] std::vector<int> nodes_of(const Class& c) const {
    std::vector<int> node_of(static_cast<std::size_t>(spec_.threads), -1);
    for (std::size_t k = 0; k < c.size(); ++k) {
      for (std::size_t g = 0; g < c[k].size(); ++g) {
        const std::vector<int>& threads = kinds_[k].groups[g];
        const std::vector<int>& state = kinds_[k].states[c[k][g]];
        std::size_t next = 0;
        for (std::size_t i = 0; i < core_nodes_.size(); ++i) {
          for (int j = 0; j < state[i]; ++j) node_of[threads[next++]] = core_nodes_[i];
        }
      }
    }
    return node_of;
  }

  [[nodiscard]] Class class_of(const std::vector<int>& node_of) const {
    std::vector<int> position(t_.nodes.size(), -1);
    for (std::size_t i = 0; i < core_nodes_.size(); ++i) position[core_nodes_[i]] = static_cast<int>(i);
    Class c(kinds_.size());
    for (std::size_t k = 0; k < kinds_.size(); ++k) {
      for (const std::vector<int>& threads : kinds_[k].groups) {
        std::vector<int> state(core_nodes_.size(), 0);
        for (int w : threads) ++state[position[node_of[w]]];
        c[k].push_back(kinds_[k].state_index.at(state));
      }
      std::sort(c[k].begin(), c[k].end());
    }
    return c;
  }

  [[nodiscard]] std::vector<int> cpus_of(const std::vector<int>& node_of) const {
    std::vector<int> first(t_.nodes.size(), 0);
    int core = 0;
    for (std::size_t n = 0; n < t_.nodes.size(); ++n) {
      first[n] = core;
      core += t_.nodes[n].cores;
    }
    std::vector<int> used(t_.nodes.size(), 0);
    std::vector<int> cpus;
    for (int n : node_of) cpus.push_back(first[n] + used[n]++);
    return cpus;
  }

  [[nodiscard]] std::string text_of(const Class& c) const {
    std::string out;
    for (std::size_t k = 0; k < c.size(); ++k) {
      if (k > 0) out += " |";  // the next kind of group
      for (std::size_t i = 0; i < c[k].size();) {
        std::size_t j = i;
        while (j < c[k].size() && c[k][j] == c[k][i]) ++j;
        std::string state;
        const std::vector<int>& counts = kinds_[k].states[c[k][i]];
        for (std::size_t n = 0; n < counts.size(); ++n) {
          if (counts[n] > 0) state += (state.empty() ? "" : " ") + t_.nodes[core_nodes_[n]].id + ":" + std::to_string(counts[n]);
        }
        out += (out.empty() || out.back() == '|' ? (out.empty() ? "" : " ") : ", ") + ("{" + state + "}") + (j - i > 1 ? " x" + std::to_string(j - i) : "");
        i = j;
      }
    }
    return out;
  }

  // Every class (before the machine's symmetry) whose threads fit the cores; false when there
  // are more than `limit`.
  bool enumerate(double limit, const std::function<void(const Class&)>& visit) const {
    Class c(kinds_.size());
    std::vector<int> room = caps_;
    double count = 0.0;
    bool within = true;
    auto recurse = [&](auto&& self, std::size_t k, std::size_t g, int min_state) -> void {
      if (!within) return;
      if (k == kinds_.size()) {
        if (++count > limit) {
          within = false;
          return;
        }
        visit(c);
        return;
      }
      if (g == kinds_[k].groups.size()) {
        self(self, k + 1, 0, 0);
        return;
      }
      for (int s = min_state; s < static_cast<int>(kinds_[k].states.size()) && within; ++s) {
        const std::vector<int>& state = kinds_[k].states[s];
        bool fits = true;
        for (std::size_t i = 0; i < state.size() && fits; ++i) fits = state[i] <= room[i];
        if (!fits) continue;
        for (std::size_t i = 0; i < state.size(); ++i) room[i] -= state[i];
        c[k].push_back(s);
        self(self, k, g + 1, s);
        c[k].pop_back();
        for (std::size_t i = 0; i < state.size(); ++i) room[i] += state[i];
      }
    };
    recurse(recurse, 0, 0, 0);
    return within;
  }

  [[nodiscard]] double assignments() const { return labelled_assignments(spec_.threads, caps_); }

  [[nodiscard]] double machine_classes() const {
    double sum = 0.0;
    for (const std::vector<int>& p : perms_) {
      std::vector<int> fixed_caps;
      for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i] == static_cast<int>(i)) fixed_caps.push_back(caps_[i]);
      }
      sum += labelled_assignments(spec_.threads, fixed_caps);
    }
    return sum / static_cast<double>(perms_.size());
  }

  [[nodiscard]] int automorphisms() const { return static_cast<int>(perms_.size()); }
  [[nodiscard]] bool symmetry_complete() const { return symmetry_complete_; }
  [[nodiscard]] const std::vector<NodeIndex>& core_nodes() const { return core_nodes_; }
  [[nodiscard]] const std::vector<int>& caps() const { return caps_; }

 private:
  const model::Topology& t_;
  const WorkloadSpec& spec_;
  std::vector<NodeIndex> core_nodes_;
  std::vector<int> caps_;
  std::vector<GroupKind> kinds_;
  std::vector<std::vector<int>> perms_;
  bool symmetry_complete_ = true;
};

DistinctPlacement evaluate_with(Simulation& simulation, const model::Topology& t, const WorkloadSpec& spec,
                                const ThreadPlacement& placement) {
  WorkloadSpec s = spec;
  s.placement = placement;
  SimulationOptions quiet;
  quiet.record_timeline = false;
  const SimulationResult r = simulation.run(build_plan(t, s), quiet);
  DistinctPlacement p;
  p.cpus = placement.kind == PlacementKind::kExplicit ? placement.cpus : std::vector<int>{};
  for (const PlacedThread& thread : place_threads(t, s.threads, s.placement)) p.node_of_thread.push_back(thread.node);
  p.time_s = r.time_s;
  p.local_access_ratio = r.local_access_ratio();
  p.remote_share = 1.0 - p.local_access_ratio;
  p.memory_bytes = r.bytes;
  p.remote_bytes = r.remote_bytes;
  p.energy = estimate_energy(t, r);
  return p;
}

DistinctPlacement evaluate_with(Simulation& simulation, const model::Topology& t, const WorkloadSpec& spec, const std::vector<int>& cpus) {
  return evaluate_with(simulation, t, spec, ThreadPlacement{PlacementKind::kExplicit, cpus});
}

}  // namespace

DistinctPlacement evaluate_placement(const model::Topology& t, const WorkloadSpec& spec, const std::vector<int>& cpus) {
  Simulation simulation(t);
  return evaluate_with(simulation, t, spec, cpus);
}

DistinctPlacement evaluate_placement(const model::Topology& t, const WorkloadSpec& spec, const ThreadPlacement& placement) {
  Simulation simulation(t);
  return evaluate_with(simulation, t, spec, placement);
}

DistinctPlacementResult search_distinct_placements(const model::Topology& t, const WorkloadSpec& spec,
                                                   const DistinctPlacementOptions& options) {
  const Space space(t, spec, options);
  DistinctPlacementResult result;
  result.assignments = space.assignments();
  result.machine_classes = space.machine_classes();
  result.automorphisms = space.automorphisms();
  result.symmetry_complete = space.symmetry_complete();

  Simulation simulation(t);
  std::map<Space::Class, std::size_t> orbit;  // canonical class -> index in ranked
  auto add = [&](const Space::Class& c, bool count_multiplicity) {
    const Space::Class rep = space.canonical(c);
    auto it = orbit.find(rep);
    if (it == orbit.end()) {
      DistinctPlacement p = evaluate_with(simulation, t, spec, space.cpus_of(space.nodes_of(rep)));
      p.text = space.text_of(rep);
      ++result.simulations;
      it = orbit.emplace(rep, result.ranked.size()).first;
      result.ranked.push_back(std::move(p));
    }
    if (count_multiplicity) result.ranked[it->second].assignments += space.multiplicity(c);
  };

  std::vector<Space::Class> all;
  result.exhaustive = space.enumerate(options.max_classes, [&](const Space::Class& c) { all.push_back(c); });
  if (result.exhaustive) {
    for (const Space::Class& c : all) add(c, true);
    result.classes = static_cast<double>(result.ranked.size());
  } else {
    // Sampling: random assignments, then moves from the best so far.
    std::mt19937_64 random(options.seed);
    std::vector<int> slots;
    for (std::size_t i = 0; i < space.core_nodes().size(); ++i) {
      for (int c = 0; c < space.caps()[i]; ++c) slots.push_back(space.core_nodes()[i]);
    }
    // The first candidate fills the nodes in thread order (compact: a chunk group stays
    // together); then every fourth is random, the others a move from the best so far: a thread
    // of a split group swapped with a thread on its partner's node (joining the group), or two
    // random threads on different nodes swapped.
    std::vector<int> best;
    double best_time = 0.0;
    std::vector<int> group_of(static_cast<std::size_t>(spec.threads), 0);
    const std::vector<ThreadGroup> groups = interchangeable_threads(spec);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (int w : groups[g].threads) group_of[w] = static_cast<int>(g);
    }
    int attempts = 0;
    while (!options.stop(result.simulations) && ++attempts < 1000000) {
      std::vector<int> node_of;
      std::uniform_int_distribution<int> thread(0, spec.threads - 1);
      if (best.empty()) {
        std::vector<int> ordered = slots;  // node order
        node_of.assign(ordered.begin(), ordered.begin() + spec.threads);
      } else if (attempts % 4 == 0) {
        std::shuffle(slots.begin(), slots.end(), random);
        node_of.assign(slots.begin(), slots.begin() + spec.threads);
      } else {
        node_of = best;
        const int a = thread(random);
        int b = thread(random);
        if (attempts % 2 == 0) {
          // A partner of a on another node, then a thread there that is not in a's group.
          const std::vector<int>& mates = groups[group_of[a]].threads;
          std::vector<int> away;
          for (int m : mates) {
            if (node_of[m] != node_of[a]) away.push_back(m);
          }
          if (away.empty()) continue;
          const int target = node_of[away[std::uniform_int_distribution<std::size_t>(0, away.size() - 1)(random)]];
          std::vector<int> there;
          for (int w = 0; w < spec.threads; ++w) {
            if (node_of[w] == target && group_of[w] != group_of[a]) there.push_back(w);
          }
          if (there.empty()) continue;
          b = there[std::uniform_int_distribution<std::size_t>(0, there.size() - 1)(random)];
        }
        if (node_of[a] == node_of[b]) continue;
        std::swap(node_of[a], node_of[b]);
      }
      const Space::Class c = space.class_of(node_of);
      add(c, false);
      const DistinctPlacement& p = result.ranked[orbit.at(space.canonical(c))];
      if (best.empty() || p.time_s < best_time) {
        best = node_of;
        best_time = p.time_s;
      }
    }
    result.classes = 0.0;  // not enumerated
  }
  std::stable_sort(result.ranked.begin(), result.ranked.end(),
                   [](const DistinctPlacement& a, const DistinctPlacement& b) { return a.time_s < b.time_s; });
  return result;
}

}  // namespace numatwin::sim
