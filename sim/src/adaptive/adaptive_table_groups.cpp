// Table groups as the placer's units (adaptive_table_groups.hpp has the rules).
#include "numatwin/sim/adaptive/adaptive_table_groups.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace numatwin::sim {
namespace {

// Live parts of each table, in part order.
std::map<int, std::vector<const LivePart*>> parts_by_table(const std::vector<LivePart>& live) {
  std::map<int, std::vector<const LivePart*>> by_table;
  for (const LivePart& p : live) by_table[p.table].push_back(&p);
  return by_table;
}

bool group_aligned(const std::vector<int>& tables,
                   const std::map<int, std::vector<const LivePart*>>& by_table) {
  static const std::vector<const LivePart*> kNone;
  const auto parts_of = [&](int t) -> const std::vector<const LivePart*>& {
    const auto it = by_table.find(t);
    return it == by_table.end() ? kNone : it->second;
  };
  const std::vector<const LivePart*>& first = parts_of(tables.front());
  for (int t : tables) {
    const std::vector<const LivePart*>& other = parts_of(t);
    if (other.size() != first.size()) return false;
    for (std::size_t i = 0; i < first.size(); ++i) {
      if (other[i]->socket != first[i]->socket) return false;
    }
  }
  return true;
}

}  // namespace

std::vector<int> adaptive_group_tables(const AdaptiveScenario& sc, int table) {
  const std::string& group = sc.tables.at(static_cast<std::size_t>(table)).group;
  if (group.empty()) return {table};
  std::vector<int> tables;
  for (int t = 0; t < static_cast<int>(sc.tables.size()); ++t) {
    if (sc.tables[static_cast<std::size_t>(t)].group == group) tables.push_back(t);
  }
  return tables;
}

bool adaptive_groups_aligned(const AdaptiveScenario& sc, const std::vector<LivePart>& live) {
  const auto by_table = parts_by_table(live);
  for (int t = 0; t < static_cast<int>(sc.tables.size()); ++t) {
    if (!group_aligned(adaptive_group_tables(sc, t), by_table)) return false;
  }
  return true;
}

std::vector<std::vector<int>> adaptive_placement_units(const AdaptiveScenario& sc,
                                                       const std::vector<LivePart>& live) {
  const auto by_table = parts_by_table(live);
  std::vector<std::vector<int>> units;
  std::vector<bool> done(sc.tables.size(), false);
  for (const auto& [table, parts] : by_table) {
    if (done.at(static_cast<std::size_t>(table))) continue;
    const std::vector<int> tables = adaptive_group_tables(sc, table);
    for (int t : tables) done[static_cast<std::size_t>(t)] = true;
    if (!group_aligned(tables, by_table)) {
      throw std::logic_error("adaptive: the tables of group " + sc.tables.at(table).group +
                             " are no longer co-partitioned");
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
      std::vector<int> unit;
      for (int t : tables) unit.push_back(by_table.at(t)[i]->part);
      units.push_back(std::move(unit));
    }
  }
  std::sort(units.begin(), units.end(),
            [](const std::vector<int>& a, const std::vector<int>& b) { return a.front() < b.front(); });
  return units;
}

}  // namespace numatwin::sim
