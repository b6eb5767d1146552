// JSON forms of what validate/ reports (discovery, link inference), for `--json` output.
#pragma once

#include <nlohmann/json.hpp>

#include "numatwin/validate/discover/link_inference.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"

namespace numatwin::validate {

using Json = nlohmann::ordered_json;

Json to_json(const DiscoveredMachine& machine);
Json to_json(const LinkInference& inference);
// {"machine": ..., "link_inference": ..., "fully_connected_fallback": ..., "placeholders": [...],
//  "topology": <the skeleton in the topology file format>}
Json to_json(const DiscoveredMachine& machine, const TopologySkeleton& skeleton);

}  // namespace numatwin::validate
