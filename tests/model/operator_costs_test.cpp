// Operator costs in the topology file (model/operator_costs.hpp, docs/topology-format.md): read,
// written back exactly, and every bad entry named by its JSON pointer.
#include "numatwin/model/operator_costs.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "numatwin/model/cost_transfer.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::model {
namespace {

using Json = nlohmann::json;

// One node with cores and memory: the smallest valid topology.
Json one_node(Json costs) {
  Json doc{{"format_version", 1},
           {"name", "one"},
           {"nodes", Json::array({Json{{"id", "n0"},
                                       {"kind", "node"},
                                       {"cores", 2},
                                       {"threads_per_core", 1},
                                       {"frequency_ghz", 2.0},
                                       {"caches", Json::array()},
                                       {"memory_capacity_bytes", 1 << 30},
                                       {"memory_read_bandwidth_gbps", 10.0},
                                       {"local_latency_ns", 100.0},
                                       {"miss_buffers_per_core", 10}}})},
           {"links", Json::array()},
           {"coherence", Json{{"protocol", "source_snoop"},
                              {"probe_bytes_per_line", 0},
                              {"response_bytes_per_line", 0},
                              {"remote_access_overhead_ns", 0}}},
           {"performance", Json{{"cache_line_bytes", 64},
                                {"memory_queue_ns", 0},
                                {"link_queue_ns", 0},
                                {"queue_exponent", 1}}},
           {"provenance", Json{{"source", "test"},
                               {"measured", Json::array()},
                               {"theoretical", Json::array()},
                               {"reconstructed", Json::array()},
                               {"notes", ""}}}};
  if (!costs.is_null()) doc["operator_costs"] = std::move(costs);
  return doc;
}

Json cost(double value, double low, double high, const char* origin = "measured") {
  return Json{{"value", value},
              {"low", low},
              {"high", high},
              {"origin", origin},
              {"source", "a test host, 2026-11-24"}};
}

void expect_error(const Json& doc, const std::string& pointer, const std::string& part) {
  try {
    parse_topology(doc.dump(), "m.json");
    ADD_FAILURE() << "accepted " << doc.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_pointer(), pointer) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(OperatorCostsTest, ReadAndWrittenBackExactly) {
  const Topology t = parse_topology(one_node(Json{{"llc_hit_ns", cost(18, 12, 27, "transferred")},
                                                  {"hash_cycles_per_tuple", cost(2.9, 2.6, 3.3)}})
                                        .dump(),
                                    "m.json");
  ASSERT_EQ(t.operator_costs.size(), 2u);
  const CostValue llc = cost_or_default(t.operator_costs, "llc_hit_ns");
  EXPECT_EQ(llc.value, 18.0);
  EXPECT_EQ(llc.low, 12.0);
  EXPECT_EQ(llc.high, 27.0);
  EXPECT_EQ(llc.origin, CostOrigin::kTransferred);
  EXPECT_EQ(llc.source, "a test host, 2026-11-24");
  const std::string text = topology_to_json_text(t);
  EXPECT_EQ(parse_topology(text, "again.json"), t);
  EXPECT_EQ(topology_to_json_text(parse_topology(text, "again.json")), text);
}

TEST(OperatorCostsTest, AnUnlistedCostIsTheDefaultWithItsStatedRange) {
  const Topology t = parse_topology(one_node(Json()).dump(), "m.json");
  EXPECT_TRUE(t.operator_costs.empty());
  // The table's default for hash_cycles_per_tuple: 20 cycles, assumed range 2 .. 40.
  const CostValue c = cost_or_default(t.operator_costs, "hash_cycles_per_tuple");
  EXPECT_EQ(c.origin, CostOrigin::kDefault);
  EXPECT_EQ(c.value, 20.0);
  EXPECT_EQ(c.low, 2.0);
  EXPECT_EQ(c.high, 40.0);
  EXPECT_THROW(cost_or_default(t.operator_costs, "no_such_cost"), std::invalid_argument);
}

TEST(OperatorCostsTest, EveryDefaultLiesInItsRange) {
  for (const OperatorCostInfo& info : operator_cost_table()) {
    EXPECT_LE(info.smallest, info.default_low) << info.name;
    EXPECT_LE(info.default_low, info.default_value) << info.name;
    EXPECT_LE(info.default_value, info.default_high) << info.name;
    EXPECT_LT(info.default_low, info.default_high) << info.name;  // a default is never exact
  }
}

TEST(OperatorCostsTest, BadEntriesAreNamed) {
  expect_error(one_node(Json{{"llc_hit", cost(18, 12, 27)}}), "/operator_costs/llc_hit",
               "unknown operator cost \"llc_hit\"");
  expect_error(one_node(Json{{"llc_hit_ns", cost(18, 25, 27)}}), "/operator_costs/llc_hit_ns/low",
               "between 0");
  expect_error(one_node(Json{{"llc_hit_ns", cost(18, 12, 17)}}), "/operator_costs/llc_hit_ns/high",
               ">= the value 18");
  expect_error(one_node(Json{{"llc_hit_ns", cost(-1, -2, 27)}}), "/operator_costs/llc_hit_ns/value",
               ">= 0");
  // Lines in flight: at least one.
  expect_error(one_node(Json{{"random_lines_in_flight", cost(0.5, 0.5, 2)}}),
               "/operator_costs/random_lines_in_flight/value", ">= 1");
  // A share: at most 1, its range too.
  expect_error(one_node(Json{{"llc_usable_share", cost(1.2, 0.5, 1.2)}}),
               "/operator_costs/llc_usable_share/value", "between 0.01 and 1, found 1.2");
  expect_error(one_node(Json{{"llc_usable_share", cost(0.6, 0.5, 1.1)}}),
               "/operator_costs/llc_usable_share/high", "between the value 0.6 and 1, found 1.1");
  expect_error(one_node(Json{{"llc_hit_ns", cost(18, 12, 27, "guessed")}}),
               "/operator_costs/llc_hit_ns/origin", "\"guessed\"");
  Json no_source = cost(18, 12, 27);
  no_source.erase("source");
  expect_error(one_node(Json{{"llc_hit_ns", no_source}}), "/operator_costs/llc_hit_ns/source",
               "missing");
  Json extra = cost(18, 12, 27);
  extra["unit"] = "ns";
  expect_error(one_node(Json{{"llc_hit_ns", extra}}), "/operator_costs/llc_hit_ns/unit", "");
  expect_error(one_node(Json::array()), "/operator_costs", "operator costs by name");
}

TEST(OperatorCostsTest, TransferKeepsCyclesScalesLatenciesByClockAndCapsLinesInFlight) {
  // Source: 2.0 GHz; target: 2.5 GHz with 10 miss buffers per core.
  Topology source =
      parse_topology(one_node(Json{{"llc_hit_ns", cost(20, 18, 22)},
                                   {"hash_cycles_per_tuple", cost(10, 9, 11, "calibrated")},
                                   {"random_lines_in_flight", cost(12, 10, 14)},
                                   {"scan_cycles_per_tuple", cost(2, 1, 8, "default")},
                                   {"llc_usable_share", cost(0.3, 0.25, 0.35)}})
                         .dump(),
                     "source.json");
  Json target_doc = one_node(Json());
  target_doc["name"] = "target";
  target_doc["nodes"][0]["frequency_ghz"] = 2.5;
  const Topology target = parse_topology(target_doc.dump(), "target.json");
  const Topology out = transfer_operator_costs(source, target);
  // The default is not carried, nor the measured LLC share (it belongs to the source's cache).
  ASSERT_EQ(out.operator_costs.size(), 3u);
  EXPECT_EQ(cost_or_default(out.operator_costs, "llc_usable_share").origin, CostOrigin::kDefault);
  // llc_hit_ns: 20 x 2.0 / 2.5 = 16; range [18 x 0.8 / 1.5, 22 x 0.8 x 1.5] = [9.6, 26.4].
  const CostValue llc = cost_or_default(out.operator_costs, "llc_hit_ns");
  EXPECT_DOUBLE_EQ(llc.value, 16.0);
  EXPECT_DOUBLE_EQ(llc.low, 9.6);
  EXPECT_DOUBLE_EQ(llc.high, 26.4);
  EXPECT_EQ(llc.origin, CostOrigin::kTransferred);
  EXPECT_NE(llc.source.find("transferred from one (measured"), std::string::npos) << llc.source;
  // hash cycles: the same 10 cycles; range [9 / 1.5, 11 x 1.5] = [6, 16.5].
  const CostValue hash = cost_or_default(out.operator_costs, "hash_cycles_per_tuple");
  EXPECT_DOUBLE_EQ(hash.value, 10.0);
  EXPECT_DOUBLE_EQ(hash.low, 6.0);
  EXPECT_DOUBLE_EQ(hash.high, 16.5);
  // lines in flight: min(12, 10) = 10; low min(10, 10) / 1.5; high capped at 10.
  const CostValue lines = cost_or_default(out.operator_costs, "random_lines_in_flight");
  EXPECT_DOUBLE_EQ(lines.value, 10.0);
  EXPECT_DOUBLE_EQ(lines.low, 10.0 / 1.5);
  EXPECT_DOUBLE_EQ(lines.high, 10.0);
  EXPECT_EQ(cost_or_default(out.operator_costs, "scan_cycles_per_tuple").origin,
            CostOrigin::kDefault);
  // Written and read back as a valid file.
  EXPECT_EQ(parse_topology(topology_to_json_text(out), "out.json"), out);
  // Nothing to carry: an error that says what to do.
  EXPECT_THROW(transfer_operator_costs(target, source), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::model
