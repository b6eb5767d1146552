#include "numatwin/model/tlb_json.hpp"

#include <string>

namespace numatwin::model {

TlbSpec read_tlb(const JsonReader& r) {
  r.expect_object("TLB figures {\"stlb_entries_4k\": ..., \"source\": ...}");
  r.allow_only({"l1_entries_4k", "l1_entries_2m", "stlb_entries_4k", "stlb_entries_2m", "stlb_hit_ns", "page_walk_ns_4k",
                "page_walk_ns_2m", "concurrent_walks", "source"});
  TlbSpec tlb;
  auto entries = [&r](const char* key, std::optional<int>& out) {
    if (r.has(key)) out = r.field(key).small_integer(1);
  };
  auto time_ns = [&r](const char* key, std::optional<double>& out) {
    if (!r.has(key)) return;
    const JsonReader f = r.field(key);
    const double v = f.number();
    if (!(v > 0.0)) f.fail("expected a number > 0 (ns)");
    out = v;
  };
  entries("l1_entries_4k", tlb.l1_entries_4k);
  entries("l1_entries_2m", tlb.l1_entries_2m);
  entries("stlb_entries_4k", tlb.stlb_entries_4k);
  entries("stlb_entries_2m", tlb.stlb_entries_2m);
  time_ns("stlb_hit_ns", tlb.stlb_hit_ns);
  time_ns("page_walk_ns_4k", tlb.page_walk_ns_4k);
  time_ns("page_walk_ns_2m", tlb.page_walk_ns_2m);
  if (r.has("concurrent_walks")) {
    const JsonReader f = r.field("concurrent_walks");
    const double v = f.number();
    if (!(v >= 1.0)) f.fail("expected a number >= 1 (page walks in flight)");
    tlb.concurrent_walks = v;
  }
  tlb.source = r.field("source").string(true);
  const TlbFigures used = tlb_basis(tlb).figures;
  if (used.stlb_entries_4k < used.l1_entries_4k)
    (r.has("stlb_entries_4k") ? r.field("stlb_entries_4k") : r)
        .fail("expected stlb_entries_4k >= l1_entries_4k (" + std::to_string(used.l1_entries_4k) + ")");
  if (used.stlb_entries_2m < used.l1_entries_2m)
    (r.has("stlb_entries_2m") ? r.field("stlb_entries_2m") : r)
        .fail("expected stlb_entries_2m >= l1_entries_2m (" + std::to_string(used.l1_entries_2m) + ")");
  return tlb;
}

nlohmann::ordered_json tlb_json(const TlbSpec& tlb) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  auto put = [&j](const char* key, const auto& value) {
    if (value) j[key] = *value;
  };
  put("l1_entries_4k", tlb.l1_entries_4k);
  put("l1_entries_2m", tlb.l1_entries_2m);
  put("stlb_entries_4k", tlb.stlb_entries_4k);
  put("stlb_entries_2m", tlb.stlb_entries_2m);
  put("stlb_hit_ns", tlb.stlb_hit_ns);
  put("page_walk_ns_4k", tlb.page_walk_ns_4k);
  put("page_walk_ns_2m", tlb.page_walk_ns_2m);
  put("concurrent_walks", tlb.concurrent_walks);
  j["source"] = tlb.source;
  return j;
}

}  // namespace numatwin::model
