#include "numatwin/validate/report_json.hpp"

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
              {"caches", caches}};
    nodes.push_back(node);
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
