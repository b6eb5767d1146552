// The topology file's /tlb (tlb.hpp): reading with errors that carry the JSON pointer, and writing
// the fields the file gave (model io part: nlohmann_json).
#pragma once

#include <nlohmann/json.hpp>

#include "numatwin/model/input_json.hpp"
#include "numatwin/model/tlb.hpp"

namespace numatwin::model {

// "tlb": {"l1_entries_4k": n, "l1_entries_2m": n, "stlb_entries_4k": n, "stlb_entries_2m": n,
//         "stlb_hit_ns": x, "page_walk_ns_4k": x, "page_walk_ns_2m": x, "concurrent_walks": x,
//         "source": "..."}: every figure optional (absent: the default), the source required;
// entries integers >= 1, times > 0, concurrent_walks >= 1; an STLB with fewer entries than the
// L1 of the same page size (as the figures used, defaults included) is refused at the STLB's field.
TlbSpec read_tlb(const JsonReader& r);
nlohmann::ordered_json tlb_json(const TlbSpec& tlb);

}  // namespace numatwin::model
