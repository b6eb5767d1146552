// Operator costs from a core's microarchitecture (model/core_cost_rules.hpp), worked by hand on a
// small table, and the table reader's errors named by their JSON pointer.
#include "numatwin/model/core_cost_rules.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "numatwin/model/core_cost_rules_json.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::model {
namespace {

using Json = nlohmann::json;

// One analysed core "c" (every in-core cost 10 cycles but the partition loop's 2, the
// selection's 4 and 8 and the index join's inner level's 6) and one without a scheduling model, "k".
Json table_json() {
  Json costs = Json::object();
  for (const char* name : {"scan_cycles_per_tuple", "hash_cycles_per_tuple", "join_cycles_per_tuple", "group_cycles_per_tuple",
                           "partition_cycles_per_tuple", "partition_join_cycles_per_tuple", "merge_cycles_per_tuple", "filter_cycles_per_cell"}) {
    costs[name] = Json{{"value", 10.0}};
  }
  costs["sort_cycles_per_comparison"] = Json{{"value", 2.0}};
  costs["select_cycles_per_value"] = Json{{"value", 5.0}, {"select_16", 4.0}, {"select_256", 8.0}};
  costs["index_join"] = Json{{"inner_level", 6.0}, {"leaf", 9.0}};
  return Json{{"provenance", {{"llvm_mca", "LLVM 14"}}},
              {"microarchitectures",
               {{"c", {{"scheduling_model", {{"model", "CModel"}, {"borrowed", false}}}, {"model_costs", costs}}},
                {"k", {{"scheduling_model", {{"model", nullptr}, {"borrowed", nullptr}}}}}}}};
}

const NamedCost& cost(const std::vector<NamedCost>& costs, const std::string& name) {
  for (const NamedCost& c : costs) {
    if (c.name == name) return c;
  }
  throw std::logic_error("no cost " + name);
}

TEST(CoreCostRulesTest, AnalysedLoopCostsAreTheAnalysersCyclesWithItsBand) {
  const LoopCycleTable table = parse_loop_cycles(table_json().dump(), "t.json");
  const std::vector<NamedCost> costs = derive_core_costs(table, "c");
  ASSERT_EQ(costs.size(), 11u);
  const CostValue& hash = cost(costs, "hash_cycles_per_tuple").cost;
  EXPECT_EQ(hash.origin, CostOrigin::kDerived);
  EXPECT_DOUBLE_EQ(hash.value, 10.0);
  EXPECT_DOUBLE_EQ(hash.low, 5.5);    // 0.55 x 10
  EXPECT_DOUBLE_EQ(hash.high, 21.0);  // 2.1 x 10
  EXPECT_NE(hash.source.find("-mcpu=c on the CModel"), std::string::npos) << hash.source;
  // The index join's cost per level is its inner-level loop's 6 cycles, with the same band.
  const CostValue& index = cost(costs, "index_cycles_per_level").cost;
  EXPECT_DOUBLE_EQ(index.value, 6.0);
  EXPECT_DOUBLE_EQ(index.low, 3.3);
  EXPECT_DOUBLE_EQ(index.high, 12.6);
}

TEST(CoreCostRulesTest, SortAndSelectAddTheirMispredictions) {
  const std::vector<NamedCost> costs = derive_core_costs(parse_loop_cycles(table_json().dump(), "t.json"), "c");
  // Sort: 2 + 17 / 2 = 10.5; low 0.55 x 2 + 15 / 2 = 8.6; high 2.1 x 2 + 20 / 2 = 14.2.
  const CostValue& sort = cost(costs, "sort_cycles_per_comparison").cost;
  EXPECT_DOUBLE_EQ(sort.value, 10.5);
  EXPECT_DOUBLE_EQ(sort.low, 8.6);
  EXPECT_DOUBLE_EQ(sort.high, 14.2);
  // Select: groups of 16: 4 + 15/16 x 17 = 19.9375; of 256: 8 + 1.375 x 17 = 31.375;
  // sqrt(19.9375 x 31.375) = sqrt(625.539...) = 25.0108...
  const CostValue& select = cost(costs, "select_cycles_per_value").cost;
  EXPECT_NEAR(select.value, std::sqrt(19.9375 * 31.375), 1e-12);
  EXPECT_NEAR(select.value, 25.0108, 1e-4);
  // low: (2.2 + 14.0625) x (4.4 + 20.625) = 16.2625 x 25.025; high: (8.4 + 18.75) x (16.8 + 27.5).
  EXPECT_NEAR(select.low, std::sqrt(16.2625 * 25.025), 1e-12);
  EXPECT_NEAR(select.high, std::sqrt(27.15 * 44.3), 1e-12);
}

TEST(CoreCostRulesTest, ACoreWithoutASchedulingModelOrUnknownGetsNoRule) {
  const LoopCycleTable table = parse_loop_cycles(table_json().dump(), "t.json");
  try {
    derive_core_costs(table, "k");
    FAIL() << "k has no cycles";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no scheduling model"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cycles for: c)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(derive_core_costs(table, "zen9"), std::invalid_argument);
}

TEST(CoreCostRulesTest, MeasuredCostsAreKeptDefaultsAndOldDerivedOnesReplaced) {
  const LoopCycleTable table = parse_loop_cycles(table_json().dump(), "t.json");
  Topology t = load_topology(std::string(NUMATWIN_TOPOLOGY_DIR) + "/skylake-4114-2s.json");
  t.operator_costs = {NamedCost{"hash_cycles_per_tuple", CostValue{3.0, 2.0, 4.0, CostOrigin::kMeasured, "host, date"}},
                      NamedCost{"scan_cycles_per_tuple", CostValue{7.0, 6.0, 8.0, CostOrigin::kDerived, "an older table"}},
                      NamedCost{"llc_hit_ns", CostValue{30.0, 20.0, 40.0, CostOrigin::kCalibrated, "suite"}}};
  const Topology out = with_derived_core_costs(t, table, "c");
  EXPECT_EQ(out.operator_costs.size(), 12u);  // the measured hash and the llc hit kept, 10 derived
  EXPECT_EQ(cost(out.operator_costs, "hash_cycles_per_tuple").cost.origin, CostOrigin::kMeasured);
  EXPECT_DOUBLE_EQ(cost(out.operator_costs, "scan_cycles_per_tuple").cost.value, 10.0);
  EXPECT_EQ(cost(out.operator_costs, "llc_hit_ns").cost.origin, CostOrigin::kCalibrated);
}

TEST(CoreCostRulesTest, TheBundledTableDerivesEveryAnalysedShippedCore) {
  // Not the values (the tool's output): that every core but K8 has each cost, in its range.
  const LoopCycleTable table = load_loop_cycles(std::string(NUMATWIN_TOPOLOGY_DIR) + "/cores/loop-cycles-llvm-mca-14.json");
  for (const char* core : {"nehalem", "sandybridge", "ivybridge", "haswell", "broadwell", "skylake-avx512", "sapphirerapids", "znver3"}) {
    for (const NamedCost& c : derive_core_costs(table, core)) {
      EXPECT_GT(c.cost.value, 0.0) << core << " " << c.name;
      EXPECT_LE(c.cost.low, c.cost.value) << core << " " << c.name;
      EXPECT_LE(c.cost.value, c.cost.high) << core << " " << c.name;
    }
  }
  EXPECT_THROW(derive_core_costs(table, "k8"), std::invalid_argument);
}

TEST(CoreCostRulesTest, BadTablesNameTheField) {
  auto error_of = [](const Json& doc) -> std::string {
    try {
      parse_loop_cycles(doc.dump(), "t.json");
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  Json doc = table_json();
  doc["microarchitectures"]["c"]["model_costs"]["hash_cycles_per_tuple"]["value"] = -1.0;
  EXPECT_NE(error_of(doc).find("/microarchitectures/c/model_costs/hash_cycles_per_tuple/value"), std::string::npos) << error_of(doc);
  doc = table_json();
  doc["microarchitectures"]["c"]["model_costs"]["select_cycles_per_value"]["select_256"] = 1e300;  // x 2.1 would overflow
  EXPECT_NE(error_of(doc).find("/microarchitectures/c/model_costs/select_cycles_per_value/select_256: expected cycles >= 0 and below 1e6"),
            std::string::npos)
      << error_of(doc);
  doc = table_json();
  doc["microarchitectures"]["c"]["model_costs"].erase("merge_cycles_per_tuple");
  EXPECT_NE(error_of(doc).find("/microarchitectures/c/model_costs/merge_cycles_per_tuple"), std::string::npos) << error_of(doc);
  doc = table_json();
  doc["microarchitectures"]["c"]["scheduling_model"]["borrowed"] = "yes";
  EXPECT_NE(error_of(doc).find("/microarchitectures/c/scheduling_model/borrowed"), std::string::npos) << error_of(doc);
  EXPECT_NE(error_of(Json::array()).find("t.json"), std::string::npos);
  try {
    parse_loop_cycles("{not json", "t.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
}

}  // namespace
}  // namespace numatwin::model
