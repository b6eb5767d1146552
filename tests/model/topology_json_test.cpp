// The loader's rules, one test per rule: each bad document must give exactly one InputError
// naming the file, the JSON pointer and the expectation. Documents are built here by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::model {
namespace {

using Json = nlohmann::json;

Json socket(const std::string& id) {
  return Json{{"id", id},
              {"kind", "node"},
              {"cores", 2},
              {"threads_per_core", 2},
              {"frequency_ghz", 2.5},
              {"caches", Json::array({Json{{"level", 1}, {"size_bytes", 32768}, {"shared_by_cores", 1}}})},
              {"memory_capacity_bytes", 1073741824},
              {"memory_read_bandwidth_gbps", 20.0},
              {"local_latency_ns", 100.0},
              {"miss_buffers_per_core", 10}};
}

// Three sockets in a line a - b - c, a router r between b and c as a second path.
Json valid_document() {
  return Json{{"format_version", 1},
              {"name", "line-3"},
              {"description", "three sockets in a line"},
              {"nodes", Json::array({socket("a"), socket("b"), socket("c"), Json{{"id", "r"}, {"kind", "router"}}})},
              {"links", Json::array({Json{{"between", {"a", "b"}}, {"bandwidth_per_direction_gbps", 10.0}, {"latency_ns", 40.0}},
                                     Json{{"between", {"b", "c"}}, {"bandwidth_per_direction_gbps", 10.0}, {"latency_ns", 40.0}},
                                     Json{{"from", "b"}, {"to", "r"}, {"bandwidth_gbps", 5.0}, {"latency_ns", 10.0}},
                                     Json{{"from", "r"}, {"to", "c"}, {"bandwidth_gbps", 5.0}, {"latency_ns", 10.0}}})},
              {"routes", Json::array({Json{{"path", {"b", "r", "c"}}}})},
              {"coherence", Json{{"protocol", "source_snoop"},
                                 {"probe_bytes_per_line", 16.0},
                                 {"response_bytes_per_line", 8.0},
                                 {"remote_access_overhead_ns", 0.0}}},
              {"performance", Json{{"cache_line_bytes", 64}, {"memory_queue_ns", 40.0}, {"link_queue_ns", 20.0}, {"queue_exponent", 4.0}}},
              {"measurements", Json::array({Json{{"id", "local"},
                                                 {"metric", "read_bandwidth_gbps"},
                                                 {"streams", Json::array({Json{{"cpu_node", "a"}, {"memory_node", "a"}, {"threads", 4}}})},
                                                 {"value", 18.5},
                                                 {"source", "made up for the test"}}})},
              {"provenance", Json{{"source", "hand-written test"},
                                  {"measured", Json::array()},
                                  {"theoretical", Json::array()},
                                  {"reconstructed", Json::array({"/links"})},
                                  {"notes", ""}}}};
}

// Parses `doc` and returns the error; fails the test if the document is accepted.
InputError expect_rejected(const Json& doc) {
  try {
    parse_topology(doc.dump(), "bad.json");
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted a bad document: " << doc.dump();
  return InputError("", "", "");
}

void expect_error(const Json& doc, const std::string& pointer, const std::string& expectation_part) {
  const InputError e = expect_rejected(doc);
  EXPECT_EQ(e.file(), "bad.json");
  EXPECT_EQ(e.json_pointer(), pointer) << e.what();
  EXPECT_NE(e.expectation().find(expectation_part), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("bad.json: " + pointer), std::string::npos) << e.what();
}

TEST(TopologyJsonTest, ValidDocumentLoads) {
  const Topology t = parse_topology(valid_document().dump(), "ok.json");
  EXPECT_EQ(t.name, "line-3");
  ASSERT_EQ(t.nodes.size(), 4u);
  EXPECT_EQ(t.nodes[3].kind, NodeKind::kRouter);
  ASSERT_EQ(t.links.size(), 6u);  // two symmetric entries = 4 directed, plus 2 directed
  EXPECT_EQ(t.links[0].from, 0);
  EXPECT_EQ(t.links[1].from, 1);
  EXPECT_EQ(t.links[1].to, 0);
  EXPECT_EQ(t.links[1].spec_index, 0);
  EXPECT_EQ(t.links[4].spec_index, 2);
  EXPECT_EQ(t.links[5].spec_index, 3);
  ASSERT_EQ(t.routes.size(), 1u);
  EXPECT_EQ(t.routes[0].path, (std::vector<NodeIndex>{1, 3, 2}));
}

TEST(TopologyJsonTest, SaveAndReloadGivesTheSameTopology) {
  const Topology t = parse_topology(valid_document().dump(), "ok.json");
  const std::string text = topology_to_json_text(t);
  EXPECT_EQ(parse_topology(text, "again.json"), t);
  // Canonical text is a fixed point.
  EXPECT_EQ(topology_to_json_text(parse_topology(text, "again.json")), text);
}

TEST(TopologyJsonTest, SaveWritesAtomicallyAndLoadReadsBack) {
  const Topology t = parse_topology(valid_document().dump(), "ok.json");
  const auto dir = std::filesystem::temp_directory_path() / "numatwin_topology_json_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / "saved.json";
  save_topology(t, path);
  EXPECT_EQ(load_topology(path), t);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename(), "saved.json") << "temporary file left behind";
  }
  std::filesystem::remove_all(dir);
}

TEST(TopologyJsonTest, MissingFileIsAnInputError) {
  try {
    load_topology("/nonexistent/machine.json");
    FAIL() << "loaded a missing file";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/machine.json");
    EXPECT_NE(e.expectation().find("cannot open"), std::string::npos);
  }
}

TEST(TopologyJsonTest, RejectsInvalidJson) {
  try {
    parse_topology("{\"name\": ", "bad.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(e.expectation().find("not valid JSON"), std::string::npos);
  }
}

TEST(TopologyJsonTest, RejectsNonObjectTopLevel) { expect_error(Json::array(), "", "topology object"); }

TEST(TopologyJsonTest, RejectsUnknownKeys) {
  Json doc = valid_document();
  doc["nodes"][1]["bandwith_gbps"] = 3;
  expect_error(doc, "/nodes/1/bandwith_gbps", "unknown field");
  doc = valid_document();
  doc["colour"] = "red";
  expect_error(doc, "/colour", "unknown field");
  doc = valid_document();
  doc["links"][0]["lanes"] = 2;
  expect_error(doc, "/links/0/lanes", "unknown field");
  doc = valid_document();
  doc["provenance"]["by"] = "me";
  expect_error(doc, "/provenance/by", "unknown field");
}

TEST(TopologyJsonTest, UnknownKeyWithSlashIsEscapedInThePointer) {
  Json doc = valid_document();
  doc["a/b~c"] = 1;
  expect_error(doc, "/a~1b~0c", "unknown field");
}

TEST(TopologyJsonTest, RejectsMissingFields) {
  for (const char* field : {"cores", "threads_per_core", "frequency_ghz", "caches", "memory_capacity_bytes",
                            "memory_read_bandwidth_gbps", "local_latency_ns", "id", "kind"}) {
    Json doc = valid_document();
    doc["nodes"][2].erase(field);
    expect_error(doc, std::string("/nodes/2/") + field, "missing required field");
  }
  for (const char* field : {"format_version", "name", "nodes", "links", "coherence", "provenance"}) {
    Json doc = valid_document();
    doc.erase(field);
    expect_error(doc, std::string("/") + field, "missing required field");
  }
  Json doc = valid_document();
  doc["links"][1].erase("latency_ns");
  expect_error(doc, "/links/1/latency_ns", "missing required field");
  doc = valid_document();
  doc["provenance"].erase("measured");
  expect_error(doc, "/provenance/measured", "missing required field");
}

TEST(TopologyJsonTest, RejectsWrongTypes) {
  Json doc = valid_document();
  doc["nodes"][0]["cores"] = "eight";
  expect_error(doc, "/nodes/0/cores", "expected an integer");
  doc = valid_document();
  doc["nodes"][0]["cores"] = 2.5;
  expect_error(doc, "/nodes/0/cores", "expected an integer");
  doc = valid_document();
  doc["nodes"][0]["frequency_ghz"] = true;
  expect_error(doc, "/nodes/0/frequency_ghz", "expected a number");
  doc = valid_document();
  doc["nodes"] = Json::object();
  expect_error(doc, "/nodes", "JSON array");
}

TEST(TopologyJsonTest, RejectsNonPositiveBandwidths) {
  Json doc = valid_document();
  doc["links"][0]["bandwidth_per_direction_gbps"] = 0;
  expect_error(doc, "/links/0/bandwidth_per_direction_gbps", "> 0");
  doc = valid_document();
  doc["links"][2]["bandwidth_gbps"] = -3.5;
  expect_error(doc, "/links/2/bandwidth_gbps", "> 0");
  doc = valid_document();
  doc["nodes"][1]["memory_read_bandwidth_gbps"] = 0;
  expect_error(doc, "/nodes/1/memory_read_bandwidth_gbps", "> 0");
  doc = valid_document();
  doc["nodes"][1]["memory_write_bandwidth_gbps"] = 0;
  expect_error(doc, "/nodes/1/memory_write_bandwidth_gbps", "> 0");
  doc = valid_document();
  doc["links"][0]["latency_ns"] = -1;
  expect_error(doc, "/links/0/latency_ns", ">= 0");
}

TEST(TopologyJsonTest, RejectsLinksToUnknownNodes) {
  Json doc = valid_document();
  doc["links"][1]["between"][1] = "z";
  expect_error(doc, "/links/1/between/1", "unknown node id \"z\"");
  doc = valid_document();
  doc["links"][3]["from"] = "q";
  expect_error(doc, "/links/3/from", "unknown node id \"q\"");
}

TEST(TopologyJsonTest, RejectsSelfLinksAndDuplicateLinks) {
  Json doc = valid_document();
  doc["links"][0]["between"] = {"a", "a"};
  expect_error(doc, "/links/0/between/1", "no self-links");
  doc = valid_document();
  doc["links"].push_back(Json{{"from", "a"}, {"to", "b"}, {"bandwidth_gbps", 1.0}, {"latency_ns", 1.0}});
  expect_error(doc, "/links/4", "duplicate link a->b (also in /links/0)");
}

TEST(TopologyJsonTest, RejectsMalformedLinks) {
  Json doc = valid_document();
  doc["links"][0] = Json{{"bandwidth_gbps", 1.0}};
  expect_error(doc, "/links/0", "symmetric link");
  doc = valid_document();
  doc["links"][0]["between"] = {"a", "b", "c"};
  expect_error(doc, "/links/0/between", "exactly two");
}

TEST(TopologyJsonTest, RejectsDuplicateIds) {
  Json doc = valid_document();
  doc["nodes"][2]["id"] = "a";
  expect_error(doc, "/nodes/2/id", "duplicate node id \"a\" (also /nodes/0/id)");
}

TEST(TopologyJsonTest, RejectsDisconnectedGraphs) {
  Json doc = valid_document();
  doc["links"].erase(1);  // drop b-c: c is reached only through b -> r -> c, never back
  doc.erase("routes");
  expect_error(doc, "/nodes/2", "no path of links");
  doc = valid_document();
  doc["nodes"].push_back(socket("island"));
  expect_error(doc, "/nodes/0", "no path of links to the memory of node island");
}

TEST(TopologyJsonTest, RejectsRoutersWithCoresOrDanglingRouters) {
  Json doc = valid_document();
  doc["nodes"][3]["cores"] = 4;
  expect_error(doc, "/nodes/3/cores", "unknown field");
  doc = valid_document();
  doc["links"].erase(3);  // r has a link in but none out
  doc.erase("routes");
  expect_error(doc, "/nodes/3", "router r needs links both in and out");
}

TEST(TopologyJsonTest, RejectsNodesWithNeitherCoresNorMemory) {
  Json doc = valid_document();
  doc["nodes"][0]["cores"] = 0;
  doc["nodes"][0].erase("miss_buffers_per_core");
  doc["nodes"][0]["memory_capacity_bytes"] = 0;
  expect_error(doc, "/nodes/0", "cores > 0 or memory_capacity_bytes > 0");
}

TEST(TopologyJsonTest, AcceptsMemoryOnlyNodes) {
  Json doc = valid_document();
  doc["nodes"][2]["cores"] = 0;
  doc["nodes"][2].erase("miss_buffers_per_core");
  EXPECT_NO_THROW(parse_topology(doc.dump(), "ok.json"));
  doc["nodes"][2]["miss_buffers_per_core"] = 4;
  expect_error(doc, "/nodes/2/miss_buffers_per_core", "only for nodes with cores");
}

TEST(TopologyJsonTest, RejectsRoutesThatAreNotPaths) {
  Json doc = valid_document();
  doc["routes"][0]["path"] = {"a", "c"};
  expect_error(doc, "/routes/0/path/1", "no link a->c");
  doc = valid_document();
  doc["routes"][0]["path"] = {"a", "b", "a", "b"};
  expect_error(doc, "/routes/0/path/2", "appears twice");
  doc = valid_document();
  doc["routes"][0]["path"] = {"a"};
  expect_error(doc, "/routes/0/path", "at least two");
  doc = valid_document();
  doc["routes"].push_back(Json{{"path", {"b", "c"}}});
  expect_error(doc, "/routes/1/path", "one route per ordered pair");
  doc = valid_document();
  doc["routes"][0]["path"][1] = "nowhere";
  expect_error(doc, "/routes/0/path/1", "unknown node id");
}

TEST(TopologyJsonTest, CoherenceRules) {
  Json doc = valid_document();
  doc["coherence"]["protocol"] = "mesi";
  expect_error(doc, "/coherence/protocol", "\"source_snoop\", \"home_snoop\" or \"directory\"");
  doc = valid_document();
  doc["coherence"]["protocol"] = "directory";
  expect_error(doc, "/coherence/directory_probe_fraction", "missing required field");
  doc["coherence"]["directory_probe_fraction"] = 1.5;
  expect_error(doc, "/coherence/directory_probe_fraction", "[0, 1]");
  doc["coherence"]["directory_probe_fraction"] = 0.25;
  EXPECT_EQ(parse_topology(doc.dump(), "ok.json").coherence.directory_probe_fraction, 0.25);
  doc = valid_document();
  doc["coherence"]["directory_probe_fraction"] = 0.25;
  expect_error(doc, "/coherence/directory_probe_fraction", "only with");
}

TEST(TopologyJsonTest, RejectsOtherFormatVersions) {
  Json doc = valid_document();
  doc["format_version"] = 2;
  expect_error(doc, "/format_version", "format_version 1");
}

TEST(TopologyJsonTest, RejectsOutOfRangeIntegers) {
  Json doc = valid_document();
  doc["nodes"][0]["memory_capacity_bytes"] = 18446744073709551615ULL;
  expect_error(doc, "/nodes/0/memory_capacity_bytes", "at most");
  doc = valid_document();
  doc["nodes"][0]["cores"] = 1LL << 40;
  expect_error(doc, "/nodes/0/cores", "<=");
}

}  // namespace
}  // namespace numatwin::model

namespace numatwin::model {
namespace {

// Found by the loader fuzzer: a number beyond double range made nlohmann throw out_of_range,
// which escaped as a crash instead of an InputError.
TEST(TopologyJsonTest, NumberOutOfRangeIsAnInputError) {
  EXPECT_THROW(parse_topology(R"({"format_version": 1e400})", "huge.json"), InputError);
}

}  // namespace
}  // namespace numatwin::model

namespace numatwin::model {
namespace {

Json energy_figures() {
  return Json{{"dram_pj_per_byte", 120.0},
              {"remote_access_pj_per_byte", 10.0},
              {"link_pj_per_byte", 40.0},
              {"dram_background_watts_per_node", 2.5},
              {"source", "made up for the test"}};
}

TEST(TopologyJsonTest, EnergyFiguresLoadAndRoundTrip) {
  Json doc = valid_document();
  EXPECT_FALSE(parse_topology(doc.dump(), "ok.json").energy.has_value());
  EXPECT_TRUE(energy_basis(std::nullopt).defaults);
  doc["energy"] = energy_figures();
  const Topology t = parse_topology(doc.dump(), "ok.json");
  ASSERT_TRUE(t.energy.has_value());
  EXPECT_EQ(t.energy->dram_pj_per_byte, 120.0);
  EXPECT_EQ(t.energy->dram_background_watts_per_node, 2.5);
  EXPECT_FALSE(energy_basis(t.energy).defaults);
  EXPECT_EQ(parse_topology(topology_to_json_text(t), "again.json"), t);
}

TEST(TopologyJsonTest, EnergyFiguresAreCheckedOneByOne) {
  Json doc = valid_document();
  doc["energy"] = energy_figures();
  doc["energy"]["link_pj_per_byte"] = -1.0;
  expect_error(doc, "/energy/link_pj_per_byte", ">= 0");
  doc["energy"] = energy_figures();
  doc["energy"].erase("source");
  expect_error(doc, "/energy/source", "");
  doc["energy"] = energy_figures();
  doc["energy"]["dram_pj_per_bit"] = 1.0;
  expect_error(doc, "/energy/dram_pj_per_bit", "");
  doc["energy"] = 5;
  expect_error(doc, "/energy", "energy figures");
}

}  // namespace
}  // namespace numatwin::model

namespace numatwin::model {
namespace {

Json tlb_figures() {
  return Json{{"l1_entries_4k", 64}, {"stlb_entries_4k", 1536}, {"page_walk_ns_4k", 45.0}, {"source", "made up for the test"}};
}

TEST(TopologyJsonTest, TlbFiguresLoadAndRoundTrip) {
  Json doc = valid_document();
  EXPECT_FALSE(parse_topology(doc.dump(), "ok.json").tlb.has_value());
  doc["tlb"] = tlb_figures();
  const Topology t = parse_topology(doc.dump(), "ok.json");
  ASSERT_TRUE(t.tlb.has_value());
  EXPECT_EQ(t.tlb->stlb_entries_4k, 1536);
  EXPECT_FALSE(t.tlb->stlb_entries_2m.has_value());  // absent: the default, not written back
  EXPECT_EQ(t.tlb->page_walk_ns_4k, 45.0);
  const std::string text = topology_to_json_text(t);
  EXPECT_EQ(text.find("stlb_entries_2m"), std::string::npos);
  EXPECT_EQ(parse_topology(text, "again.json"), t);
}

TEST(TopologyJsonTest, TlbFiguresAreCheckedOneByOne) {
  Json doc = valid_document();
  doc["tlb"] = tlb_figures();
  doc["tlb"]["stlb_entries_4k"] = 0;
  expect_error(doc, "/tlb/stlb_entries_4k", ">= 1");
  doc["tlb"] = tlb_figures();
  doc["tlb"]["page_walk_ns_4k"] = -2.0;
  expect_error(doc, "/tlb/page_walk_ns_4k", "> 0");
  doc["tlb"] = tlb_figures();
  doc["tlb"]["concurrent_walks"] = 0.5;
  expect_error(doc, "/tlb/concurrent_walks", ">= 1");
  doc["tlb"] = tlb_figures();
  doc["tlb"]["stlb_entries_4k"] = 32;  // fewer than the L1's 64
  expect_error(doc, "/tlb/stlb_entries_4k", "stlb_entries_4k >= l1_entries_4k (64)");
  doc["tlb"] = tlb_figures();
  doc["tlb"]["l1_entries_2m"] = 4096;  // more than the default STLB's 1536: refused at the block
  expect_error(doc, "/tlb", "stlb_entries_2m >= l1_entries_2m (4096)");
  doc["tlb"] = tlb_figures();
  doc["tlb"].erase("source");
  expect_error(doc, "/tlb/source", "");
  doc["tlb"] = tlb_figures();
  doc["tlb"]["dtlb_entries"] = 64;
  expect_error(doc, "/tlb/dtlb_entries", "");
  doc["tlb"] = "big";
  expect_error(doc, "/tlb", "TLB figures");
}

}  // namespace
}  // namespace numatwin::model

namespace numatwin::model {
namespace {

Json data_path() {
  return Json{{"microarchitecture", "skylake-avx512"},
              {"loads_per_cycle", 2},
              {"stores_per_cycle", 1},
              {"l2_to_l1_bytes_per_cycle", 64},
              {"l2_l1_duplex", "half"},
              {"l3_to_l2_bytes_per_cycle", 16},
              {"l3_l2_duplex", "full"},
              {"overlap", Json{{"l1", false}, {"l2_l1", false}, {"l3_l2", false}, {"memory", false}}},
              {"source", "made up for the test"}};
}

TEST(TopologyJsonTest, CoreDataPathLoadsAndRoundTrips) {
  Json doc = valid_document();
  EXPECT_FALSE(parse_topology(doc.dump(), "ok.json").core_data_path.has_value());
  doc["core_data_path"] = data_path();
  const Topology t = parse_topology(doc.dump(), "ok.json");
  ASSERT_TRUE(t.core_data_path.has_value());
  EXPECT_EQ(t.core_data_path->l3_to_l2_bytes_per_cycle, 16.0);
  EXPECT_TRUE(t.core_data_path->l3_l2_full_duplex);
  EXPECT_FALSE(t.core_data_path->l2_l1_full_duplex);
  EXPECT_EQ(parse_topology(topology_to_json_text(t), "again.json"), t);
  // Without an L3: no l3 pair, no l3_l2 overlap flag.
  doc["core_data_path"].erase("l3_to_l2_bytes_per_cycle");
  doc["core_data_path"].erase("l3_l2_duplex");
  doc["core_data_path"]["overlap"].erase("l3_l2");
  const Topology k8 = parse_topology(doc.dump(), "k8.json");
  EXPECT_FALSE(k8.core_data_path->l3_to_l2_bytes_per_cycle.has_value());
  EXPECT_EQ(parse_topology(topology_to_json_text(k8), "again.json"), k8);
}

TEST(TopologyJsonTest, CoreDataPathErrorsNameTheField) {
  Json doc = valid_document();
  doc["core_data_path"] = data_path();
  doc["core_data_path"]["l3_to_l2_bytes_per_cycle"] = 0;
  expect_error(doc, "/core_data_path/l3_to_l2_bytes_per_cycle", "> 0 and <= 1024");
  doc["core_data_path"] = data_path();
  doc["core_data_path"]["l2_to_l1_bytes_per_cycle"] = 64e9;  // bytes per second, not per cycle
  expect_error(doc, "/core_data_path/l2_to_l1_bytes_per_cycle", "<= 1024");
  doc["core_data_path"] = data_path();
  doc["core_data_path"]["l2_l1_duplex"] = "both";
  expect_error(doc, "/core_data_path/l2_l1_duplex", "\"half\" or \"full\"");
  doc["core_data_path"] = data_path();
  doc["core_data_path"].erase("l3_to_l2_bytes_per_cycle");
  expect_error(doc, "/core_data_path/l3_l2_duplex", "without l3_to_l2_bytes_per_cycle");
  doc["core_data_path"] = data_path();
  doc["core_data_path"]["overlap"].erase("memory");
  expect_error(doc, "/core_data_path/overlap/memory", "");
  doc["core_data_path"] = data_path();
  doc["core_data_path"]["overlap"]["l1"] = "yes";
  expect_error(doc, "/core_data_path/overlap/l1", "");
  doc["core_data_path"] = data_path();
  doc["core_data_path"]["l4_to_l3_bytes_per_cycle"] = 8;
  expect_error(doc, "/core_data_path/l4_to_l3_bytes_per_cycle", "");
  doc["core_data_path"] = data_path();
  doc["core_data_path"].erase("source");
  expect_error(doc, "/core_data_path/source", "");
}

}  // namespace
}  // namespace numatwin::model
