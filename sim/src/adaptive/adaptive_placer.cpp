#include "numatwin/sim/adaptive/adaptive_placer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace numatwin::sim {
namespace {

std::string pct(double share) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.0f%%", 100.0 * share);
  return buffer;
}

std::string sock(int s) { return "s" + std::to_string(s); }

// "Lowers the imbalance" means by more than rounding: shares are sums of time integrals, so a
// unit holding a whole socket can read 0.99999999 of it, and |I - 2p| would then pass for a gain
// (a numerical tolerance, not a model parameter).
constexpr double kImbalanceRounding = 1e-9;

bool lowers(double after, double before) { return after < before - kImbalanceRounding; }

// A real gain: the imbalance I' = |I - k x s| (k = 2 for a move, 1 for a split) is lower than I
// for every share s the unit may really have: eligibility accepts a unit whose load over the
// window diverges by up to c_e from its recent share p, so the placer knows p only within
// p x (1 -+ c_e); no unit holds more than its socket, so s <= u_h. |I - k s| is convex in s, so
// the two ends of [p (1 - c_e), min(p (1 + c_e), u_h)] suffice.
bool lowers_within_tolerance(double imbalance, double k, double share, double hot_share, double c_e) {
  const double low = share * (1.0 - c_e);
  const double high = std::max(low, std::min(share * (1.0 + c_e), hot_share));
  return lowers(std::abs(imbalance - k * low), imbalance) && lowers(std::abs(imbalance - k * high), imbalance);
}

}  // namespace

bool placer_eligible(double recent, double window_average, double divergence) {
  return std::abs(window_average - recent) <= divergence * recent;
}

std::string placer_action_name(PlacerAction action) {
  switch (action) {
    case PlacerAction::kNone: return "none";
    case PlacerAction::kMove: return "move";
    case PlacerAction::kPartition: return "partition";
    case PlacerAction::kMerge: return "merge";
  }
  return "?";
}

PlacerDecision decide_placement(const PlacerSnapshot& snapshot, const PlacerParameters& p) {
  PlacerDecision d;
  const int sockets = static_cast<int>(snapshot.sockets.size());
  if (sockets < 2) return d;
  // 2. The hottest pair: the largest u_h - u_c (ties: lowest h, then lowest c).
  int hot = -1;
  int cold = -1;
  double imbalance = -1.0;
  for (int h = 0; h < sockets; ++h) {
    for (int c = 0; c < sockets; ++c) {
      if (h == c) continue;
      const double i = snapshot.sockets[h].cpu_share - snapshot.sockets[c].cpu_share;
      if (i > imbalance) {
        imbalance = i;
        hot = h;
        cold = c;
      }
    }
  }
  d.hot_socket = hot;
  d.cold_socket = cold;
  d.imbalance_before = imbalance;
  d.imbalance_after = imbalance;
  const PlacerSocketState& sh = snapshot.sockets[hot];
  const PlacerSocketState& sc = snapshot.sockets[cold];
  if (!(sh.cpu_share > p.saturation) || !(imbalance > p.imbalance)) {
    d.reason = "hottest pair " + sock(hot) + "/" + sock(cold) + ": " + pct(sh.cpu_share) + " vs " + pct(sc.cpu_share) +
               ", imbalance " + pct(imbalance) + ": under the thresholds (the hot socket above " + pct(p.saturation) +
               " and the imbalance above " + pct(p.imbalance) + " of a socket's cores; the rule acts on an imbalance only)";
    return d;
  }
  // Parts on the hot socket, busiest first (ties: lowest id).
  std::vector<const PlacerPartState*> candidates;
  for (const PlacerPartState& part : snapshot.parts) {
    if (part.socket == hot) candidates.push_back(&part);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const PlacerPartState* a, const PlacerPartState* b) {
    if (a->cpu_share != b->cpu_share) return a->cpu_share > b->cpu_share;
    return a->part < b->part;
  });
  const double mem_room = sc.memory_capacity_bytes_per_s - sc.memory_bytes_per_s;
  // 3. Move.
  for (const PlacerPartState* part : candidates) {
    if (!part->move_eligible) continue;
    const double after = std::abs(imbalance - 2.0 * part->cpu_share);
    if (!lowers(after, imbalance) || !lowers_within_tolerance(imbalance, 2.0, part->cpu_share, sh.cpu_share, p.eligibility_divergence) ||
        part->memory_bytes_per_s > mem_room)
      continue;
    d.action = PlacerAction::kMove;
    d.part = part->part;
    d.table = part->table;
    d.from_socket = hot;
    d.to_socket = cold;
    d.imbalance_after = after;
    d.reason = sock(hot) + " at " + pct(sh.cpu_share) + ", " + sock(cold) + " at " + pct(sc.cpu_share) + ": imbalance " +
               pct(imbalance) + " -> " + pct(after) + " predicted";
    return d;
  }
  // 4. Partition.
  for (const PlacerPartState* part : candidates) {
    if (!part->partition_eligible || 2 * part->table_parts > sockets) continue;
    const double after = std::abs(imbalance - part->cpu_share);
    if (!lowers(after, imbalance) || !lowers_within_tolerance(imbalance, 1.0, part->cpu_share, sh.cpu_share, p.eligibility_divergence) ||
        0.5 * part->memory_bytes_per_s > mem_room)
      continue;
    d.action = PlacerAction::kPartition;
    d.part = part->part;
    d.table = part->table;
    d.from_socket = hot;
    d.to_socket = cold;
    d.imbalance_after = after;
    d.reason = sock(hot) + " at " + pct(sh.cpu_share) + ", " + sock(cold) + " at " + pct(sc.cpu_share) +
               ", no part can move: split one, imbalance " + pct(imbalance) + " -> " + pct(after) + " predicted";
    return d;
  }
  // 5. Merge a cold partitioned table onto the coldest socket.
  int coldest = 0;
  for (int s = 1; s < sockets; ++s) {
    if (snapshot.sockets[s].cpu_share < snapshot.sockets[coldest].cpu_share) coldest = s;
  }
  std::map<int, std::vector<const PlacerPartState*>> by_table;
  for (const PlacerPartState& part : snapshot.parts) by_table[part.table].push_back(&part);
  for (const auto& [table, parts] : by_table) {
    if (parts.size() < 2) continue;
    double cpu = 0.0;
    double mem = 0.0;
    bool movable = true;
    std::vector<double> share(sockets);
    for (int s = 0; s < sockets; ++s) share[s] = snapshot.sockets[s].cpu_share;
    for (const PlacerPartState* part : parts) {
      cpu += part->cpu_share;
      if (part->socket != coldest) {
        movable = movable && part->move_eligible;
        mem += part->memory_bytes_per_s;
        share[part->socket] -= part->cpu_share;
        share[coldest] += part->cpu_share;
      }
    }
    if (!(cpu < p.cold_table_cpu) || !movable) continue;
    const PlacerSocketState& sk = snapshot.sockets[coldest];
    if (sk.memory_bytes_per_s + mem > sk.memory_capacity_bytes_per_s) continue;
    const double after = share[hot] - share[cold];
    if (std::abs(after) > imbalance) continue;
    d.action = PlacerAction::kMerge;
    d.table = table;
    d.to_socket = coldest;
    d.imbalance_after = std::abs(after);
    d.reason = "no part can move or split; the table uses " + pct(cpu) + " of a socket: merge onto the coldest socket " +
               sock(coldest);
    return d;
  }
  d.reason = sock(hot) + " at " + pct(sh.cpu_share) + ", " + sock(cold) + " at " + pct(sc.cpu_share) +
             ": no eligible part lowers the imbalance within " + sock(cold) + "'s memory bandwidth";
  // Say when the rule waits for history: parts of the hot socket whose history is shorter than
  // the window the rule averages over.
  const PlacerPartState* waiting = nullptr;
  int short_parts = 0;
  for (const PlacerPartState* part : candidates) {
    if (!part->move_history_short) continue;
    ++short_parts;
    if (!waiting) waiting = part;
  }
  if (waiting) {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "; %d of its parts %s history shorter than the window the rule needs (e.g. %.3g s of %.3g s)",
                  short_parts, short_parts == 1 ? "has a" : "have a", waiting->history_s, waiting->move_window_s);
    d.reason += buffer;
  }
  return d;
}

}  // namespace numatwin::sim
