#include "numatwin/model/ecm_json.hpp"

#include <string>

namespace numatwin::model {
namespace {

constexpr double kMaxPerCycle = 1024.0;

double per_cycle(const JsonReader& r, const char* key, const char* unit) {
  const JsonReader f = r.field(key);
  const double v = f.number();
  if (!(v > 0.0) || v > kMaxPerCycle) {
    f.fail(std::string("expected a number > 0 and <= 1024 (") + unit + " per core cycle)");
  }
  return v;
}

bool full_duplex(const JsonReader& r, const char* key) {
  const JsonReader f = r.field(key);
  const std::string v = f.string(true);
  if (v != "half" && v != "full") f.fail("expected \"half\" or \"full\" (can the level move a line in and one out in the same cycles)");
  return v == "full";
}

}  // namespace

CoreDataPath read_core_data_path(const JsonReader& r) {
  r.expect_object("a core's data path {\"microarchitecture\": ..., \"loads_per_cycle\": ..., \"source\": ...}");
  r.allow_only({"microarchitecture", "loads_per_cycle", "stores_per_cycle", "l2_to_l1_bytes_per_cycle", "l2_l1_duplex",
                "l3_to_l2_bytes_per_cycle", "l3_l2_duplex", "overlap", "source"});
  CoreDataPath path;
  path.microarchitecture = r.field("microarchitecture").string(true);
  path.loads_per_cycle = per_cycle(r, "loads_per_cycle", "8-byte loads");
  path.stores_per_cycle = per_cycle(r, "stores_per_cycle", "8-byte stores");
  path.l2_to_l1_bytes_per_cycle = per_cycle(r, "l2_to_l1_bytes_per_cycle", "bytes");
  path.l2_l1_full_duplex = full_duplex(r, "l2_l1_duplex");
  const bool has_l3 = r.has("l3_to_l2_bytes_per_cycle");
  if (has_l3) {
    path.l3_to_l2_bytes_per_cycle = per_cycle(r, "l3_to_l2_bytes_per_cycle", "bytes");
    path.l3_l2_full_duplex = full_duplex(r, "l3_l2_duplex");
  } else if (r.has("l3_l2_duplex")) {
    r.field("l3_l2_duplex").fail("expected no l3_l2_duplex without l3_to_l2_bytes_per_cycle (a core without an L3)");
  }
  const JsonReader overlap = r.field("overlap");
  overlap.expect_object("which levels' transfers overlap {\"l1\": bool, \"l2_l1\": bool, \"l3_l2\": bool, \"memory\": bool}");
  if (has_l3) {
    overlap.allow_only({"l1", "l2_l1", "l3_l2", "memory"});
  } else {
    overlap.allow_only({"l1", "l2_l1", "memory"});
  }
  path.l1_overlaps = overlap.field("l1").boolean();
  path.l2_l1_overlaps = overlap.field("l2_l1").boolean();
  if (has_l3) path.l3_l2_overlaps = overlap.field("l3_l2").boolean();
  path.memory_overlaps = overlap.field("memory").boolean();
  path.source = r.field("source").string(true);
  return path;
}

nlohmann::ordered_json core_data_path_json(const CoreDataPath& path) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["microarchitecture"] = path.microarchitecture;
  j["loads_per_cycle"] = path.loads_per_cycle;
  j["stores_per_cycle"] = path.stores_per_cycle;
  j["l2_to_l1_bytes_per_cycle"] = path.l2_to_l1_bytes_per_cycle;
  j["l2_l1_duplex"] = path.l2_l1_full_duplex ? "full" : "half";
  if (path.l3_to_l2_bytes_per_cycle) {
    j["l3_to_l2_bytes_per_cycle"] = *path.l3_to_l2_bytes_per_cycle;
    j["l3_l2_duplex"] = path.l3_l2_full_duplex ? "full" : "half";
  }
  nlohmann::ordered_json overlap = nlohmann::ordered_json::object();
  overlap["l1"] = path.l1_overlaps;
  overlap["l2_l1"] = path.l2_l1_overlaps;
  if (path.l3_to_l2_bytes_per_cycle) overlap["l3_l2"] = path.l3_l2_overlaps;
  overlap["memory"] = path.memory_overlaps;
  j["overlap"] = overlap;
  j["source"] = path.source;
  return j;
}

}  // namespace numatwin::model
