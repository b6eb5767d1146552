// The topology file's /core_data_path (ecm.hpp): reading with errors that carry the JSON pointer,
// and writing it back (model io part: nlohmann_json).
#pragma once

#include <nlohmann/json.hpp>

#include "numatwin/model/ecm.hpp"
#include "numatwin/model/input_json.hpp"

namespace numatwin::model {

// "core_data_path": {"microarchitecture": "...", "loads_per_cycle": x, "stores_per_cycle": x,
//   "l2_to_l1_bytes_per_cycle": x, "l2_l1_duplex": "half"|"full",
//   "l3_to_l2_bytes_per_cycle": x, "l3_l2_duplex": "half"|"full",          (both absent: no L3)
//   "overlap": {"l1": bool, "l2_l1": bool, "l3_l2": bool, "memory": bool},
//   "source": "..."}: every field required but the L3's pair; rates and port counts > 0 and at
// most 1024 (a figure above that is a unit slip: bits, or bytes per second); "l3_l2" in
// "overlap" only with an L3.
CoreDataPath read_core_data_path(const JsonReader& r);
nlohmann::ordered_json core_data_path_json(const CoreDataPath& path);

}  // namespace numatwin::model
