#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/discover/report_json.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"

namespace numatwin::validate {
namespace {

const std::filesystem::path kXmlDir = std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/hwloc-xml";

model::Topology reload(const model::Topology& topology) {
  return model::parse_topology(model::topology_to_json_text(topology), "<reloaded>");
}

TEST(DiscoveryTest, ThisMachineHasNodesCpusAndALoadableSkeleton) {
  const DiscoveredMachine machine = discover_machine();
  ASSERT_FALSE(machine.nodes.empty());
  int cpus = 0;
  for (const DiscoveredNode& node : machine.nodes) {
    cpus += static_cast<int>(node.cpus.size());
    EXPECT_GE(node.hardware_threads, node.cores);
  }
  EXPECT_GE(cpus, 1);
  ASSERT_EQ(machine.distances.size(), machine.nodes.size());
  for (std::size_t i = 0; i < machine.nodes.size(); ++i) EXPECT_EQ(machine.distances[i][i], 10);
  const TopologySkeleton skeleton = make_topology_skeleton(machine, "host");
  const model::Topology loaded = reload(skeleton.topology);
  EXPECT_EQ(loaded.numa_nodes().size(), machine.nodes.size());
  EXPECT_EQ(loaded.nodes[0].id, "n" + std::to_string(machine.nodes[0].os_index));
}

TEST(DiscoveryTest, OpteronR815XmlHasEightNodesAndADeterminedLinkGraph) {
  const DiscoveredMachine machine = import_hwloc_xml(kXmlDir / "64amd64-4p2n4ca2co.xml");
  ASSERT_EQ(machine.nodes.size(), 8u);
  EXPECT_EQ(machine.packages, 4);
  for (const DiscoveredNode& node : machine.nodes) {
    EXPECT_EQ(node.cores, 8);
    EXPECT_EQ(node.hardware_threads, 8);
    EXPECT_GT(node.memory_bytes, 15LL * 1024 * 1024 * 1024);
  }
  EXPECT_EQ(machine.distances_source, "hwloc NUMALatency");
  // Row 0 as in the file (PROVENANCE.md): 10 16 16 22 16 22 16 22.
  EXPECT_EQ(machine.distances[0], (std::vector<int>{10, 16, 16, 22, 16, 22, 16, 22}));
  EXPECT_EQ(machine.distances[7], (std::vector<int>{22, 16, 16, 22, 22, 16, 16, 10}));
  const TopologySkeleton skeleton = make_topology_skeleton(machine, "r815");
  EXPECT_TRUE(skeleton.inference.consistent) << skeleton.inference.explanation;
  EXPECT_FALSE(skeleton.fully_connected_fallback);
  // 36 off-diagonal entries of 16 = 18 undirected pairs, all links; every 22-pair is 2 hops.
  EXPECT_EQ(skeleton.inference.links.size(), 18u);
  const model::Topology loaded = reload(skeleton.topology);
  EXPECT_EQ(loaded.links.size(), 36u);
  const model::Routing routing(loaded);
  EXPECT_EQ(routing.diameter(), 2);
  // The caches of an Opteron 6272 module: 16 KiB L1d, 2 MiB L2 per module (2 cores), 6 MiB L3.
  ASSERT_GE(loaded.nodes[0].caches.size(), 3u);
  EXPECT_EQ(loaded.nodes[0].caches[0].size_bytes, 16384);
  EXPECT_EQ(loaded.nodes[0].caches[1].shared_by_cores, 2);
  EXPECT_EQ(loaded.nodes[0].caches[2].size_bytes, 6291456);
}

TEST(DiscoveryTest, WestmereExFourSocketsAreFullyConnected) {
  const DiscoveredMachine machine = import_hwloc_xml(kXmlDir / "40intel64-2g2n4c+pcilocality.xml");
  ASSERT_EQ(machine.nodes.size(), 4u);
  ASSERT_TRUE(machine.frequency_ghz.has_value());
  EXPECT_DOUBLE_EQ(*machine.frequency_ghz, 2.4);
  const TopologySkeleton skeleton = make_topology_skeleton(machine, "r910");
  EXPECT_TRUE(skeleton.inference.consistent);
  EXPECT_EQ(skeleton.inference.links.size(), 6u);
  EXPECT_EQ(reload(skeleton.topology).nodes[0].cores, 10);
}

TEST(DiscoveryTest, SubNumaClusteringFallsBackToFullyConnectedAndSaysSo) {
  const DiscoveredMachine machine = import_hwloc_xml(kXmlDir / "memorysidecaches.xml");
  ASSERT_EQ(machine.nodes.size(), 4u);
  EXPECT_EQ(machine.distances[0], (std::vector<int>{10, 21, 11, 21}));
  const TopologySkeleton skeleton = make_topology_skeleton(machine, "snc2");
  EXPECT_FALSE(skeleton.inference.consistent);
  EXPECT_TRUE(skeleton.fully_connected_fallback);
  EXPECT_EQ(skeleton.topology.links.size(), 12u);
  ASSERT_FALSE(skeleton.topology.provenance.reconstructed.empty());
  EXPECT_NE(skeleton.topology.provenance.reconstructed[0].find("fully connected fallback"), std::string::npos);
  EXPECT_NO_THROW(reload(skeleton.topology));
}

TEST(DiscoveryTest, SkeletonListsItsPlaceholdersInTheProvenance) {
  const DiscoveredMachine machine = import_hwloc_xml(kXmlDir / "32em64t-2n8c2t-pci-normalio.xml");
  ASSERT_EQ(machine.nodes.size(), 2u);
  EXPECT_EQ(machine.nodes[0].cores, 8);
  EXPECT_EQ(machine.nodes[0].hardware_threads, 16);
  TopologySkeleton skeleton = make_topology_skeleton(machine, "e5-2650");
  const std::vector<std::string> listed = placeholders_of(reload(skeleton.topology));
  EXPECT_EQ(listed, skeleton.placeholders);
  EXPECT_NE(std::find(listed.begin(), listed.end(), "/nodes/*/memory_read_bandwidth_gbps"), listed.end());
  EXPECT_NE(std::find(listed.begin(), listed.end(), "/links/*/latency_ns"), listed.end());
  // The frequency came from the CPU model string, so it is not a placeholder.
  EXPECT_EQ(std::find(listed.begin(), listed.end(), "/nodes/*/frequency_ghz"), listed.end());
  set_placeholders(skeleton.topology, {"/performance/queue_exponent"});
  EXPECT_EQ(placeholders_of(skeleton.topology), (std::vector<std::string>{"/performance/queue_exponent"}));
  set_placeholders(skeleton.topology, {});
  EXPECT_TRUE(placeholders_of(skeleton.topology).empty());
  EXPECT_FALSE(skeleton.topology.provenance.notes.empty());
}

TEST(DiscoveryTest, JsonReportCarriesMachineInferenceAndTopology) {
  const DiscoveredMachine machine = import_hwloc_xml(kXmlDir / "40intel64-2g2n4c+pcilocality.xml");
  const Json report = to_json(machine, make_topology_skeleton(machine, "r910"));
  EXPECT_EQ(report["machine"]["nodes"].size(), 4u);
  EXPECT_EQ(report["link_inference"]["consistent"], true);
  EXPECT_EQ(report["topology"]["links"].size(), 6u);
  EXPECT_EQ(report["machine"]["distances"][0][1], 20);
}

TEST(DiscoveryTest, MissingOrBadFilesAreInputErrorsNamingTheFile) {
  const std::filesystem::path missing = kXmlDir / "no-such-file.xml";
  try {
    import_hwloc_xml(missing);
    FAIL() << "expected an InputError";
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.file(), missing.string());
  }
  const std::filesystem::path bad = std::filesystem::temp_directory_path() / "numatwin-discovery-test-bad.xml";
  {
    std::ofstream out(bad);
    out << "<topology version=\"2.0\"><object type=\"Machine\"";  // cut short
  }
  EXPECT_THROW(import_hwloc_xml(bad), model::InputError);
  std::filesystem::remove(bad);
}

// A copy of 64intel64-heteromem.xml with `from` replaced by `to` on line `line` (1-based), written
// to a temporary file whose path is returned.
std::filesystem::path mutated_heteromem(int line, const std::string& from, const std::string& to) {
  std::ifstream in(kXmlDir / "64intel64-heteromem.xml");
  std::string text;
  std::string out;
  for (int n = 1; std::getline(in, text); ++n) {
    if (n == line) {
      const std::size_t at = text.find(from);
      EXPECT_NE(at, std::string::npos) << "line " << line << " has no " << from;
      if (at != std::string::npos) text.replace(at, from.size(), to);
    }
    out += text + "\n";
  }
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("numatwin-heteromem-" + std::to_string(line) + "-" + to + ".xml");
  std::ofstream(path) << out;
  return path;
}

std::string import_error(const std::filesystem::path& path) {
  try {
    import_hwloc_xml(path);
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.file(), path.string());
    return e.what();
  }
  return "(imported)";
}

// Issue 39 F: hwloc 2.9 reads a 2.x/3.x file without checking that the objects carry their
// complete sets, and dies with SIGSEGV (hwloc_bitmap_compare_first) when one does not: the
// import names the file, the line, the object and the set instead. Line 66 is the PU with
// os_index 4 (id obj46), line 61 the HBM node with os_index 4 (obj6), line 4 the Machine.
TEST(DiscoveryTest, AnObjectWithoutItsSetsIsRefusedNamingLineObjectAndSet) {
  struct Case {
    int line;
    std::string set;
    std::string object;
  };
  const Case cases[] = {
      {66, "complete_cpuset", "line 66: object PU os_index=\"4\" (id \"obj46\") has no complete_cpuset"},
      {61, "complete_nodeset", "line 61: object NUMANode os_index=\"4\" (id \"obj6\") has no complete_nodeset"},
      {4, "complete_cpuset", "line 4: object Machine os_index=\"0\" (id \"obj1\") has no complete_cpuset"},
      // hwloc would load this one, with the Core's nodeset missing: refused all the same.
      {65, "nodeset", "line 65: object Core os_index=\"4\" (id \"obj45\") has no nodeset"},
  };
  for (const Case& c : cases) {
    const std::filesystem::path path = mutated_heteromem(c.line, " " + c.set + "=", " x" + c.set + "=");
    const std::string message = import_error(path);
    EXPECT_NE(message.find(path.string() + ": " + c.object), std::string::npos) << message;
    EXPECT_NE(message.find("expected cpuset, complete_cpuset, nodeset and complete_nodeset"), std::string::npos) << message;
    std::filesystem::remove(path);
  }
  // I/O objects carry no sets: a file with PCI devices and OS devices imports.
  EXPECT_NO_THROW(import_hwloc_xml(kXmlDir / "32em64t-2n8c2t-pci-normalio.xml"));
}

// The message of the InputError that importing `xml` (as a file named "<fuzz>") gives, or
// "(imported)".
std::string import_text_error(const std::string& xml) {
  try {
    import_hwloc_xml_text(xml, "<fuzz>");
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.file(), "<fuzz>");
    return e.what();
  }
  return "(imported)";
}

constexpr const char* kAllSets = R"(cpuset="0x1" complete_cpuset="0x1" nodeset="0x1" complete_nodeset="0x1")";

// Found by fuzz/hwloc_xml_fuzzer: hwloc 2.9 reads a 1.x file (a plain <topology> tag) without
// the pre-check's 2.x rules, and compares a NUMA node's complete_cpuset with its parent's before
// its own 1.x checks: a NUMA node without one crashes it (SIGSEGV in hwloc_bitmap_isequal). The
// first input is the fuzzer's, minimised ("NU" is hwloc's abbreviation of NUMANode, and hwloc
// reads attributes without a space between them).
TEST(DiscoveryTest, A1xNumaNodeWithoutItsCompleteCpusetIsRefusedNotACrash) {
  std::string message = import_text_error(R"(<topology><object cpuset=""type="NU"></)");
  EXPECT_NE(message.find("<fuzz>: line 1: object NU has no complete_cpuset; expected cpuset and complete_cpuset on every "
                         "object but I/O and Misc ones in a 1.x file"),
            std::string::npos)
      << message;
  message = import_text_error("<topology>\n<object type=\"Machine\" " + std::string(kAllSets) +
                              ">\n<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x1\" nodeset=\"0x1\"/>\n</object>\n</topology>\n");
  EXPECT_NE(message.find("<fuzz>: line 3: object NUMANode os_index=\"0\" has no complete_cpuset"), std::string::npos) << message;
  // hwloc 1.x wrote no nodesets on a machine without NUMA nodes: such a file still imports.
  const DiscoveredMachine m = import_hwloc_xml_text(
      R"(<topology><object type="Machine" os_index="0" cpuset="0x3" complete_cpuset="0x3"><object type="PU" os_index="0" )"
      R"(cpuset="0x1" complete_cpuset="0x1"/><object type="PU" os_index="1" cpuset="0x2" complete_cpuset="0x2"/></object></topology>)",
      "<fuzz>");
  ASSERT_EQ(m.nodes.size(), 1u);
  EXPECT_EQ(m.nodes[0].hardware_threads, 2);
}

// Found by fuzz/hwloc_xml_fuzzer (a 300 s run after the fix above; its input minimised to the
// Machine's tag): in a 1.x file with NUMA nodes, hwloc puts a Group between a NUMA node and a
// parent with other cpus, and sets bits in the parent's nodeset, which a Machine without one
// does not have (SIGSEGV in hwloc_bitmap_set).
TEST(DiscoveryTest, A1xFileWithNumaNodesNeedsNodesetsOnTheirParents) {
  const std::string message = import_text_error(
      "<topology>\n<object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\">\n"
      "<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\"/>\n"
      "</object>\n</topology>\n");
  EXPECT_NE(message.find("<fuzz>: line 2: object Machine os_index=\"0\" has no nodeset; expected cpuset and complete_cpuset on "
                         "every object but I/O and Misc ones in a 1.x file, and nodeset and complete_nodeset too when it has NUMA "
                         "nodes"),
            std::string::npos)
      << message;
}

// Found by fuzz/hwloc_xml_fuzzer: hwloc stops reading a tag's attributes, without an error, at the
// first one that is not name="value" with a lower-case name (here a tag cut after "cpuse", the
// next tag's sets after it; or a space before '='), and it reads a value that opens right at the
// tag's '>' on past the tag. The pre-check read every name="value" of the tag (a regular
// expression) and took sets that hwloc never sees for the object's: hwloc crashed (SIGSEGV in
// hwloc_bitmap_compare_first, hwloc_bitmap_isequal or hwloc_bitmap_set).
TEST(DiscoveryTest, ATagHwlocCannotReadToItsEndIsRefusedNotACrash) {
  const char* expected = "an <object> tag that hwloc cannot read to its end; expected name=\"value\" attributes";
  const std::string cut = std::string("<topology>\n<object type=\"Machine\" os_index=\"0\" ") + kAllSets +
                          ">\n<object type=\"NUMANode\" os_index=\"0\" cpuse\n<object type=\"PU\" os_index=\"0\" " + kAllSets +
                          "/>\n</object>\n</object>\n</topology>\n";
  std::string message = import_text_error(cut);
  EXPECT_NE(message.find(std::string("<fuzz>: line 3: ") + expected), std::string::npos) << message;
  const std::string spaced = std::string("<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\" ") +
                             R"(cpuset="0x3" complete_cpuset="0x3" nodeset="0x1" complete_nodeset="0x1">)" + "\n" +
                             R"(<object type="NUMANode" os_index="0" cpuset="0x3" complete_cpuset="0x3" nodeset="0x1" complete_nodeset="0x1"/>)" +
                             "\n" + R"(<object type="PU" os_index="1" cpuset="0x2" complete_cpuset="0x2" nodeset="0x1" complete_nodeset="0x1"/>)" +
                             "\n" + R"(<object type="PU" os_index="0" cpuset="0x1" nodeset="0x1" complete_nodeset="0x1" complete_cpuset ="0x1"/>)" +
                             "\n</object>\n</topology>\n";
  message = import_text_error(spaced);
  EXPECT_NE(message.find(std::string("<fuzz>: line 5: ") + expected), std::string::npos) << message;
  // The fuzzer's input, minimised: a value that opens at the '>'.
  message = import_text_error(R"(<topology><object cpuset="></"type="NU")");
  EXPECT_NE(message.find(std::string("<fuzz>: line 1: ") + expected), std::string::npos) << message;
}

// Found by fuzz/hwloc_xml_fuzzer (a 300 s run after the fixes above): hwloc takes two NUMA nodes
// with one os_index from an edited file, and the skeleton, whose node ids are n<os_index>, failed
// the topology checks with an error naming "<discovered NAME>", not the file.
TEST(DiscoveryTest, TwoNumaNodesWithOneOsIndexAreRefusedNamingBothLines) {
  const std::string numa = std::string(R"(<object type="NUMANode" os_index="0" )") + kAllSets + "/>\n";
  const std::string message = import_text_error(std::string("<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\" ") +
                                                kAllSets + ">\n" + numa + numa + "</object>\n</topology>\n");
  EXPECT_NE(message.find("<fuzz>: line 4: a second NUMA node with os_index 0 (the first at line 3); expected one NUMA node per "
                         "os_index"),
            std::string::npos)
      << message;
  // The skeleton itself names the source when the figures make no valid topology.
  DiscoveredMachine machine;
  machine.source = "edited.xml";
  machine.nodes.resize(2);
  for (DiscoveredNode& node : machine.nodes) {
    node.cores = 1;
    node.hardware_threads = 1;
    node.memory_bytes = 1LL << 30;
  }
  machine.distances = {{10, 20}, {20, 10}};
  try {
    (void)make_topology_skeleton(machine, "edited");
    FAIL() << "expected an InputError";
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.file(), "edited.xml");
    EXPECT_NE(std::string(e.what()).find("its topology skeleton fails the topology checks at /nodes/1/id"), std::string::npos)
        << e.what();
  }
}

// Found by fuzz/hwloc_xml_fuzzer (300 s runs after the fixes above): hwloc takes a file's sets
// for granted ("hwloc never generated such buggy XML", a FIXME of its reader) and crashes on sets
// that contradict each other (SIGSEGV); and hwloc_bitmap_sscanf, which reads every set, reads past
// the end of an empty one and fails an assertion on one that starts with ','. The first input is
// the fuzzer's, minimised ("f" for "0xf"); the second the same with sets as hwloc writes them.
TEST(DiscoveryTest, SetsThatAreNotHwlocsOrContradictEachOtherAreRefusedNotACrash) {
  std::string message = import_text_error(R"(<topology><object cpuset="f"complete_cpuset=""nodeset=""complete_nodeset="1"/>)");
  EXPECT_NE(message.find("<fuzz>: line 1: object (no type) has cpuset=\"f\"; expected a set as hwloc writes one"), std::string::npos)
      << message;
  message = import_text_error(R"(<topology><object cpuset="0xf" complete_cpuset="0x0" nodeset="0x0" complete_nodeset="0x1"/></topology>)");
  EXPECT_NE(message.find("<fuzz>: line 1: object (no type): its cpuset is not within its complete_cpuset; expected consistent sets"),
            std::string::npos)
      << message;
  for (const char* set : {"", ",,0x1"}) {
    message = import_text_error(std::string(R"(<topology version="2.0"><object type="Machine" cpuset=")") + set +
                                R"(" complete_cpuset="0x1" nodeset="0x1" complete_nodeset="0x1"/></topology>)");
    EXPECT_NE(message.find(std::string("object Machine has cpuset=\"") + set + "\"; expected a set as hwloc writes one"),
              std::string::npos)
        << message;
  }
  // A PU outside its parent's cpuset.
  message = import_text_error(std::string("<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\" ") + kAllSets +
                              ">\n<object type=\"NUMANode\" os_index=\"0\" " + kAllSets +
                              "/>\n<object type=\"PU\" os_index=\"1\" cpuset=\"0x2\" complete_cpuset=\"0x2\" nodeset=\"0x1\" "
                              "complete_nodeset=\"0x1\"/>\n</object>\n</topology>\n");
  EXPECT_NE(message.find("<fuzz>: line 4: object PU os_index=\"1\": its cpuset is not within the cpuset of the object it is in (line 2)"),
            std::string::npos)
      << message;
}

// Found by fuzz/hwloc_xml_fuzzer (a 600 s run after the fixes above): hwloc takes any bytes, and a
// NUMA node's subtype "\xbdXL" went into the skeleton's node label, which nlohmann::json refused to
// write (type_error 316, invalid UTF-8) for --out and --json, an error naming neither the file nor
// the line.
TEST(DiscoveryTest, TextThatIsNotUtf8IsRefusedNamingTheLine) {
  const std::string message =
      import_text_error(std::string("<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\" ") + kAllSets +
                        ">\n<object type=\"NUMANode\" os_index=\"0\" " + kAllSets + " subtype=\"\xbdXL\"/>\n</object>\n</topology>\n");
  EXPECT_NE(message.find("<fuzz>: line 3: a byte that is not UTF-8 (0xBD); expected UTF-8 text"), std::string::npos) << message;
}

// Found by fuzz/hwloc_xml_fuzzer (a 600 s run after the fixes above; minimised input
// "<topologyversion=\"1.0"): hwloc takes <topology version="X.Y" with sscanf, which matches without
// the space and without the closing '>', and then reads on from the '>' it looks for; without one
// it crashes (SIGSEGV in strspn). hwloc reads the text up to its first NUL byte, so a '>' after
// one is none.
TEST(DiscoveryTest, ATopologyTagThatNeverClosesIsRefusedNotACrash) {
  for (const std::string& xml : {std::string(R"(<topologyversion="1.0)"), std::string("<topology version=\"2.0\"") + '\0' + "></topology>\n"}) {
    const std::string message = import_text_error(xml);
    EXPECT_NE(message.find("<fuzz>: line 1: a <topology> tag that never closes; expected <topology version=\"2.0\">"), std::string::npos)
        << message;
  }
}

// Found while reading hwloc 2.9's XML reader for the findings above: it takes the first object
// of a 2.x file as the topology's root, and a NUMA node there empties the topology ("Topology
// became empty, aborting!") and crashes.
TEST(DiscoveryTest, A2xFileWhoseFirstObjectIsNotTheMachineIsRefusedNotACrash) {
  const std::string message =
      import_text_error(std::string(R"(<topology version="2.0"><object type="NUMANode" os_index="0" )") + kAllSets + "/></topology>");
  EXPECT_NE(message.find("<fuzz>: line 1: the first object NUMANode os_index=\"0\" is not the Machine; expected the Machine object "
                         "at the root"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace numatwin::validate
