// Query types of the adaptive engine and the tasks each stage of such a query becomes: what a
// table split into parts costs (Psaroudakis et al., docs/adaptive.md "What partitioning costs").
// Pure functions of the scenario and the current layout; the engine (adaptive_queries.cpp) runs
// the tasks.
//
// Notation, per live part i of the queried table T: socket s_i, bytes b_i (its index vector,
// the bytes a scan streams), rows r_i = b_i / row_bytes, chunks c_i = max(1, ceil(b_i /
// task_bytes)), distinct values in its dictionary d_i = min(d_T, r_i), k = number of parts. L =
// line_bytes (one cache line per random access), v = value_bytes (a dictionary entry), e =
// hash_entry_bytes, g = groups, sigma = selectivity. A join's other (build) table U has parts j
// likewise. Every planned task is one stream: it runs on a worker of its queue socket (or a thief)
// and reads `bytes` from its read socket (or from its part's socket when it follows a part).
//
// A query runs three stages, one after the other (a stage with no task is skipped):
//   0 prepare  - global dictionary (aggregations, and joins that are not co-partitioned, with
//                k > 1): one task per part i, queued on the dictionary socket D (the socket of
//                T's first live part), reading d_i x v bytes from s_i (merge of the part
//                dictionaries: cost grows with k and d).
//              - value-id mapping (joins not co-partitioned): one task per pair (i, j), queued at
//                s_i, reading U's part dictionary d_Uj x v bytes from s_Uj (cost k_T x k_U x d).
//   1 main     - one task per chunk of every part, class of the kind (scan: the index-vector
//                scan; aggregation: scan + local hash table; join: probe), bytes b_i / c_i, from
//                s_i.
//              - with a global dictionary, per chunk one lookup task at s_i reading
//                min(d_T, rows of the chunk) x L bytes from D (remote unless s_i = D).
//   2 finish   - scan: materialisation, per part m_i = sigma x r_i result values, one random
//                dictionary access each (m_i x L bytes, local), split into
//                max(1, ceil(m_i L / task_bytes)) tasks (parallel for large results).
//              - aggregation: remote merges. Every chunk's local hash table has
//                h_i = min(g, r_i / c_i) entries; they are merged into R = sum c_i result tables,
//                table r on the r-th (mod m) of the m distinct sockets holding parts, in part
//                order. Merge task (r, i) reads c_i x h_i x e / R bytes from s_i, queued at r's
//                socket (cost grows with g; remote share (m - 1) / m for evenly spread parts).
//              - join: result production, sigma x r_i result rows per probe part, each reading
//                one line of the build side: co-partitioned, pair (i, i) reads them from s_Ui;
//                otherwise the rows of part i visit every part j of U (sigma r_i / k_U x L bytes
//                from s_Uj each).
// Co-partitioned (table groups): T and U in the same group, the same number of live parts, and
// part i of each on the same socket for every i. Such a join runs pair by pair: no global
// dictionary, no mapping, local results (it pays none of the partitioning costs above).
#pragma once

#include <string>
#include <vector>

namespace numatwin::sim {

struct AdaptiveScenario;

enum class AdaptiveQueryKind { kScan, kAggregation, kJoin };
enum class AdaptivePhase { kScan, kMaterialise, kDictionary, kMerge, kMapping };
constexpr int kAdaptivePhaseCount = 5;

std::string adaptive_query_kind_name(AdaptiveQueryKind kind);
std::string adaptive_phase_name(AdaptivePhase phase);

// A query type: the study's query types a, b, c are instances (scenarios/partitioning-*.json).
struct AdaptiveQueryType {
  std::string name;
  AdaptiveQueryKind kind = AdaptiveQueryKind::kScan;
  double selectivity = 0.0;  // share of the rows in the result (scans, joins)
  double groups = 1.0;       // distinct groups (aggregations)
  int join_table = -1;       // joins: the other (build) table, an AdaptiveTable index
  // Task class per phase, AdaptiveScenario::classes indices (the loader resolves names).
  int class_of_phase[kAdaptivePhaseCount] = {0, 0, 0, 0, 0};
};

// Sizes the mechanisms need (defaults from the operators' OperatorCosts where one exists).
struct AdaptiveMechanismParameters {
  double line_bytes = 64.0;  // one random access reads a cache line (the model's line)
  double value_bytes =
      8.0;  // a dictionary entry (default: an 8-byte value, algorithms.md §1's keys)
  double hash_entry_bytes = 16.0;  // a hash table entry: OperatorCosts::entry_bytes (key + SUM)
};

// A live part as the plan sees it.
struct PlanPart {
  int part = 0;  // engine part index
  int socket = 0;
  double bytes = 0.0;
};

struct PlannedTask {
  AdaptivePhase phase = AdaptivePhase::kScan;
  int task_class = 0;
  int part = -1;         // >= 0: follows this part (queued at its socket, moves with it)
  int queue_socket = 0;  // where it is queued when it follows no part
  int read_socket = -1;  // -1: its part's socket
  double bytes = 0.0;
};

constexpr int kAdaptiveQueryStages = 3;

// T and U co-partitioned as above (`group` of both tables non-empty and equal).
bool adaptive_co_partitioned(const AdaptiveScenario& sc, int table, int other,
                             const std::vector<PlanPart>& parts,
                             const std::vector<PlanPart>& other_parts);

// The tasks of `stage` (0, 1, 2) of a query of `type` on `table` whose live parts are `parts`
// (and, for joins, the build table's `other_parts`), in part order.
std::vector<PlannedTask> plan_adaptive_query_stage(const AdaptiveScenario& sc,
                                                   const AdaptiveQueryType& type, int table,
                                                   const std::vector<PlanPart>& parts,
                                                   const std::vector<PlanPart>& other_parts,
                                                   int stage);

}  // namespace numatwin::sim
