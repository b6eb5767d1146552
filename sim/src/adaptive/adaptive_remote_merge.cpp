// Remote merges of a grouped aggregation (adaptive_query_plan.hpp): every chunk task builds a
// local hash table of h_i = min(g, rows of the chunk) entries of e bytes; they are merged into
// R = sum c_i result tables placed round robin on the m distinct sockets that hold parts (in part
// order; one part: every result table local). Result table r takes 1/R of every hash table:
//   merge task (r, i): queued at r's socket, reading c_i x h_i x e / R bytes from s_i.
// So the bytes merged grow with g and not with the number of parts; what partitioning adds is
// the remote share, (m - 1) / m of them for parts spread evenly over m sockets.
#include <algorithm>

#include "adaptive_query_plan_parts.hpp"

namespace numatwin::sim::adaptive_plan {

void add_remote_merges(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                       const AdaptiveTable& table, const std::vector<PlanPart>& parts,
                       std::vector<PlannedTask>& out) {
  std::vector<int> holders;
  int results = 0;
  for (const PlanPart& p : parts) {
    if (std::find(holders.begin(), holders.end(), p.socket) == holders.end())
      holders.push_back(p.socket);
    results += chunks_of(p.bytes, sc.task_bytes);
  }
  for (int r = 0; r < results; ++r) {
    const int result_socket = holders[r % holders.size()];
    for (const PlanPart& p : parts) {
      const int chunks = chunks_of(p.bytes, sc.task_bytes);
      const double entries = std::min(type.groups, p.bytes / chunks / table.row_bytes);
      const double bytes = chunks * entries * sc.mechanisms.hash_entry_bytes / results;
      out.push_back(PlannedTask{AdaptivePhase::kMerge, class_of(type, AdaptivePhase::kMerge), -1,
                                result_socket, p.socket, bytes});
    }
  }
}

}  // namespace numatwin::sim::adaptive_plan
