// The hwloc XML export (validate/hwloc_export.hpp), read back with hwloc's own library: the tree
// (packages, NUMA nodes with their memory and subtypes, cores, PUs) and the memory attributes
// against the model's figures worked out independently here.
#include <gtest/gtest.h>
#include <hwloc.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "numatwin/model/microbenchmark.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/discover/hwloc_export.hpp"

namespace numatwin::validate {
namespace {

model::Topology bundled(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

// An hwloc topology loaded from the export, destroyed with the fixture.
class Loaded {
 public:
  explicit Loaded(const std::string& xml) {
    EXPECT_EQ(hwloc_topology_init(&topology_), 0);
    EXPECT_EQ(hwloc_topology_set_xmlbuffer(topology_, xml.c_str(), static_cast<int>(xml.size() + 1)), 0);
    ok_ = hwloc_topology_load(topology_) == 0;
  }
  ~Loaded() { hwloc_topology_destroy(topology_); }
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] hwloc_topology_t get() const { return topology_; }

  // The value of attribute `name` for the NUMA node with os_index `target` from the cpuset of
  // NUMA node `initiator_node`'s locality.
  bool value(const char* name, unsigned target, unsigned initiator_node, hwloc_uint64_t* out) const {
    hwloc_memattr_id_t id;
    if (hwloc_memattr_get_by_name(topology_, name, &id) != 0) return false;
    hwloc_obj_t t = hwloc_get_numanode_obj_by_os_index(topology_, target);
    hwloc_obj_t i = hwloc_get_numanode_obj_by_os_index(topology_, initiator_node);
    if (t == nullptr || i == nullptr) return false;
    hwloc_location location;
    location.type = HWLOC_LOCATION_TYPE_CPUSET;
    location.location.cpuset = i->cpuset;
    return hwloc_memattr_get_value(topology_, id, t, &location, 0, out) == 0;
  }

 private:
  hwloc_topology_t topology_ = nullptr;
  bool ok_ = false;
};

TEST(HwlocExportTest, TwoSocketMachineReadsBackWithItsFigures) {
  const model::Topology t = bundled("skylake-4114-2s");
  const Loaded h(hwloc_export_xml(t));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(hwloc_get_nbobjs_by_type(h.get(), HWLOC_OBJ_PACKAGE), 2);
  EXPECT_EQ(hwloc_get_nbobjs_by_type(h.get(), HWLOC_OBJ_NUMANODE), 2);
  EXPECT_EQ(hwloc_get_nbobjs_by_type(h.get(), HWLOC_OBJ_CORE), t.total_cores());
  EXPECT_EQ(hwloc_get_nbobjs_by_type(h.get(), HWLOC_OBJ_PU), t.total_hardware_threads());
  for (unsigned n = 0; n < 2; ++n) {
    hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(h.get(), n);
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->attr->numanode.local_memory, static_cast<hwloc_uint64_t>(t.nodes[n].memory_capacity_bytes));
    // Its locality is its own socket's PUs: numatwin's numbering, core c's threads c and c + 20.
    EXPECT_EQ(hwloc_bitmap_weight(node->cpuset), t.nodes[n].hardware_threads());
    EXPECT_TRUE(hwloc_bitmap_isset(node->cpuset, static_cast<unsigned>(n * 10)));
    EXPECT_TRUE(hwloc_bitmap_isset(node->cpuset, static_cast<unsigned>(n * 10 + 20)));
  }
  // The model's figures, worked out here from its parts: idle latency from the routing, the
  // bandwidth matrix as predict_measurement gives it, in MiB/s.
  const model::Routing routing(t);
  model::BandwidthModel bm(t, routing);
  for (unsigned i = 0; i < 2; ++i) {
    for (unsigned m = 0; m < 2; ++m) {
      hwloc_uint64_t latency = 0;
      ASSERT_TRUE(h.value("Latency", m, i, &latency));
      EXPECT_EQ(latency, static_cast<hwloc_uint64_t>(std::llround(routing.access_latency_ns(static_cast<int>(i), static_cast<int>(m)))));
      model::Measurement all;
      all.streams = {model::MeasurementStream{static_cast<int>(i), static_cast<int>(m), t.nodes[i].hardware_threads()}};
      const double gbps = model::predict_measurement(t, routing, bm, all).predicted;
      hwloc_uint64_t bandwidth = 0;
      ASSERT_TRUE(h.value("Bandwidth", m, i, &bandwidth));
      EXPECT_EQ(bandwidth, static_cast<hwloc_uint64_t>(std::llround(gbps * 1e9 / 1048576.0))) << i << "->" << m;
      hwloc_uint64_t loaded = 0;
      ASSERT_TRUE(h.value("numatwin_loaded_latency_ns", m, i, &loaded));
      EXPECT_GE(loaded, latency);  // queues only add
    }
  }
  // Local reads are faster and nearer than remote ones on this machine.
  hwloc_uint64_t local = 0;
  hwloc_uint64_t remote = 0;
  ASSERT_TRUE(h.value("Bandwidth", 0, 0, &local));
  ASSERT_TRUE(h.value("Bandwidth", 1, 0, &remote));
  EXPECT_GT(local, remote);
}

TEST(HwlocExportTest, MemoryOnlyNodesKeepTheirKindAndTheirSocketsLocality) {
  const model::Topology t = bundled("xeon-max-9462-2s");
  const Loaded h(hwloc_export_xml(t));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(hwloc_get_nbobjs_by_type(h.get(), HWLOC_OBJ_NUMANODE), static_cast<int>(t.nodes.size()));
  EXPECT_EQ(hwloc_get_nbobjs_by_type(h.get(), HWLOC_OBJ_PU), t.total_hardware_threads());  // no core counted twice
  int hbm = 0;
  for (std::size_t n = 0; n < t.nodes.size(); ++n) {
    hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(h.get(), static_cast<unsigned>(n));
    ASSERT_NE(node, nullptr);
    if (t.nodes[n].has_cores()) continue;
    ++hbm;
    ASSERT_NE(node->subtype, nullptr);
    EXPECT_STREQ(node->subtype, "HBM");
    // Local to its package's cores: the same cpuset as the DRAM node of its package.
    for (std::size_t k = 0; k < t.nodes.size(); ++k) {
      if (t.nodes[k].has_cores() && t.nodes[k].package == t.nodes[n].package) {
        EXPECT_TRUE(hwloc_bitmap_isequal(node->cpuset, hwloc_get_numanode_obj_by_os_index(h.get(), static_cast<unsigned>(k))->cpuset));
      }
    }
  }
  EXPECT_EQ(hbm, 2);
}

TEST(HwlocExportTest, EveryShippedMachineLoadsInHwloc) {
  for (const auto& entry : std::filesystem::directory_iterator(NUMATWIN_TOPOLOGY_DIR)) {
    if (entry.path().extension() != ".json") continue;
    const model::Topology t = model::load_topology(entry.path());
    const Loaded h(hwloc_export_xml(t));
    EXPECT_TRUE(h.ok()) << entry.path();
    int memory_nodes = 0;
    for (const model::Node& n : t.nodes) memory_nodes += n.has_memory() ? 1 : 0;
    EXPECT_EQ(hwloc_get_nbobjs_by_type(h.get(), HWLOC_OBJ_NUMANODE), memory_nodes) << entry.path();
    EXPECT_EQ(hwloc_get_nbobjs_by_type(h.get(), HWLOC_OBJ_PU), t.total_hardware_threads()) << entry.path();
  }
}

}  // namespace
}  // namespace numatwin::validate

namespace numatwin::validate {
namespace {

// The distance matrix, worked by hand for the Max 9462 file (idle latencies from socket 0's
// cores: DDR0 111.3, DDR1 238.6, HBM0 137.7, HBM1 243.2 ns; the lab notes' SLIT row is 10 21 13 23):
// 10 x 238.6 / 111.3 = 21.4 -> 21, 10 x 137.7 / 111.3 = 12.4 -> 12, 10 x 243.2 / 111.3 = 21.9 -> 22.
TEST(HwlocExportTest, DistancesAreSlitStyleRelativeLatencies) {
  const model::Topology t = bundled("xeon-max-9462-2s");
  const Loaded h(hwloc_export_xml(t));
  ASSERT_TRUE(h.ok());
  unsigned count = 1;
  hwloc_distances_s* distances = nullptr;
  ASSERT_EQ(hwloc_distances_get_by_name(h.get(), "NUMALatency", &count, &distances, 0), 0);
  ASSERT_EQ(count, 1U);
  const unsigned n = distances->nbobjs;
  ASSERT_EQ(n, 4U);
  auto at = [&](const std::string& from, const std::string& to) {
    const auto a = t.find_node(from);
    const auto b = t.find_node(to);
    for (unsigned i = 0; i < n; ++i) {
      for (unsigned j = 0; j < n; ++j) {
        if (distances->objs[i]->os_index == static_cast<unsigned>(*a) && distances->objs[j]->os_index == static_cast<unsigned>(*b)) {
          return distances->values[i * n + j];
        }
      }
    }
    return hwloc_uint64_t{0};
  };
  const model::Routing routing(t);
  const std::string s0 = t.nodes[0].id;
  for (std::size_t m = 0; m < t.nodes.size(); ++m) {
    const double expected = m == 0 ? 10.0 : 10.0 * routing.access_latency_ns(0, static_cast<int>(m)) / routing.access_latency_ns(0, 0);
    EXPECT_EQ(at(s0, t.nodes[m].id), static_cast<hwloc_uint64_t>(std::llround(expected))) << t.nodes[m].id;
    EXPECT_EQ(at(t.nodes[m].id, t.nodes[m].id), 10U);
  }
  hwloc_distances_release(h.get(), distances);
}

}  // namespace
}  // namespace numatwin::validate
