#include "numatwin/validate/discover/report_json.hpp"

#include "numatwin/model/topology_json.hpp"

namespace numatwin::validate {

Json to_json(const DiscoveredMachine& machine) {
  Json nodes = Json::array();
  for (const DiscoveredNode& n : machine.nodes) {
    Json caches = Json::array();
    for (const model::CacheLevel& c : n.caches) {
      caches.push_back({{"level", c.level}, {"size_bytes", c.size_bytes}, {"shared_by_cores", c.shared_by_cores}});
    }
    Json node{{"os_index", n.os_index},
              {"cores", n.cores},
              {"hardware_threads", n.hardware_threads},
              {"cpus", n.cpus},
              {"allowed_cpus", n.allowed_cpus},
              {"memory_allowed", n.memory_allowed},
              {"memory_bytes", n.memory_bytes},
              {"free_memory_bytes", n.free_memory_bytes ? Json(*n.free_memory_bytes) : Json(nullptr)},
              {"caches", caches},
              {"local_cpus", n.local_cpus},
              {"subtype", n.subtype},
              {"package", n.package},
              {"memory_side_cache_bytes", n.memory_side_cache_bytes},
              {"firmware_read_bandwidth_mibps", n.read_bandwidth_mibps ? Json(*n.read_bandwidth_mibps) : Json(nullptr)},
              {"firmware_write_bandwidth_mibps", n.write_bandwidth_mibps ? Json(*n.write_bandwidth_mibps) : Json(nullptr)},
              {"firmware_read_latency_ns", n.read_latency_ns ? Json(*n.read_latency_ns) : Json(nullptr)},
              {"memattrs", n.memattr_notes}};
    nodes.push_back(node);
  }
  Json cxl = Json::array();
  for (const CxlMemoryDevice& d : machine.cxl_devices) {
    cxl.push_back({{"name", d.name}, {"ram_bytes", d.ram_bytes}, {"pmem_bytes", d.pmem_bytes}, {"local_cpus", d.local_cpus}});
  }
  return Json{{"source", machine.source},
              {"description", machine.description},
              {"hwloc_version", machine.hwloc_version},
              {"packages", machine.packages},
              {"frequency_ghz", machine.frequency_ghz ? Json(*machine.frequency_ghz) : Json(nullptr)},
              {"nodes", nodes},
              {"distances", machine.distances},
              {"distances_source", machine.distances_source},
              {"offline_cpus", machine.offline_cpus},
              {"disallowed_cpus", machine.disallowed_cpus},
              {"disallowed_nodes", machine.disallowed_nodes},
              {"cxl_devices", cxl},
              {"notes", machine.notes}};
}

Json to_json(const LinkInference& inference) {
  Json links = Json::array();
  for (const auto& [a, b] : inference.links) links.push_back(Json::array({a, b}));
  return Json{{"consistent", inference.consistent},
              {"distance_classes", inference.distance_classes},
              {"links", links},
              {"hop_matrix", inference.hop_matrix},
              {"explanation", inference.explanation}};
}

Json to_json(const DiscoveredMachine& machine, const TopologySkeleton& skeleton) {
  return Json{{"machine", to_json(machine)},
              {"link_inference", to_json(skeleton.inference)},
              {"fully_connected_fallback", skeleton.fully_connected_fallback},
              {"placeholders", skeleton.placeholders},
              {"topology", Json::parse(model::topology_to_json_text(skeleton.topology))}};
}

}  // namespace numatwin::validate
