// The topology file's /allocator_costs (allocator_costs.hpp): reading with errors that carry the
// JSON pointer, and writing in the same form (model io part: nlohmann_json).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "numatwin/model/allocator_costs.hpp"
#include "numatwin/model/input_json.hpp"

namespace numatwin::model {

// "allocator_costs": {"glibc": {"overhead_ratio": r, "host": h, "measured_at": t, "source": s,
//   "points": [{"threads", "size_bytes", "malloc_ns", "free_ns", "realloc_ns", "remote_free_ns"}]}}
std::vector<AllocatorCosts> read_allocator_costs(const JsonReader& r);
nlohmann::ordered_json allocator_costs_json(const std::vector<AllocatorCosts>& costs);

}  // namespace numatwin::model
