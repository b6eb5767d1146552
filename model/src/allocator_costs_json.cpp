#include "numatwin/model/allocator_costs_json.hpp"

#include <limits>
#include <set>
#include <string>

namespace numatwin::model {
namespace {

double non_negative(const JsonReader& r) {
  const double x = r.number();
  if (x < 0.0) r.fail("expected a number >= 0, found " + std::to_string(x));
  return x;
}

AllocatorCostPoint read_point(const JsonReader& r, std::set<std::pair<int, std::int64_t>>& seen) {
  r.expect_object("a point {\"threads\", \"size_bytes\", \"malloc_ns\", \"free_ns\", \"realloc_ns\", \"remote_free_ns\"}");
  r.allow_only({"threads", "size_bytes", "malloc_ns", "free_ns", "realloc_ns", "remote_free_ns"});
  AllocatorCostPoint p;
  p.threads = r.field("threads").small_integer(1);
  const JsonReader size = r.field("size_bytes");
  p.size_bytes = size.integer(1, std::int64_t{1} << 40);
  if ((p.size_bytes & (p.size_bytes - 1)) != 0)
    size.fail("expected a power of two (a size class), found " + std::to_string(p.size_bytes));
  p.malloc_ns = non_negative(r.field("malloc_ns"));
  p.free_ns = non_negative(r.field("free_ns"));
  p.realloc_ns = non_negative(r.field("realloc_ns"));
  p.remote_free_ns = non_negative(r.field("remote_free_ns"));
  if (!seen.insert({p.threads, p.size_bytes}).second)
    r.fail("expected one point per (threads, size_bytes); this one repeats threads " + std::to_string(p.threads) +
           ", size_bytes " + std::to_string(p.size_bytes));
  return p;
}

AllocatorLayoutPoint read_layout_point(const JsonReader& r, std::set<std::pair<int, std::int64_t>>& seen) {
  r.expect_object(
      "a layout point {\"threads\", \"size_bytes\", \"scattered_realloc_ns\", \"scattered_free_ns\", \"dependent_write_ns\", "
      "\"dependent_read_ns\", optional \"shared_realloc_ns\", \"locked_write_ns\", \"reuse_malloc_ns\", "
      "\"block_read_ns\"}");
  r.allow_only(
      {"threads", "size_bytes", "scattered_realloc_ns", "scattered_free_ns", "dependent_write_ns", "dependent_read_ns", "shared_realloc_ns",
       "locked_write_ns", "reuse_malloc_ns", "block_read_ns"});
  AllocatorLayoutPoint p;
  p.threads = r.field("threads").small_integer(1);
  const JsonReader size = r.field("size_bytes");
  p.size_bytes = size.integer(1, std::int64_t{1} << 40);
  if ((p.size_bytes & (p.size_bytes - 1)) != 0)
    size.fail("expected a power of two (a size class), found " + std::to_string(p.size_bytes));
  p.scattered_realloc_ns = non_negative(r.field("scattered_realloc_ns"));
  p.scattered_free_ns = non_negative(r.field("scattered_free_ns"));
  p.dependent_write_ns = non_negative(r.field("dependent_write_ns"));
  p.dependent_read_ns = non_negative(r.field("dependent_read_ns"));
  if (r.has("shared_realloc_ns")) p.shared_realloc_ns = non_negative(r.field("shared_realloc_ns"));
  if (r.has("locked_write_ns")) p.locked_write_ns = non_negative(r.field("locked_write_ns"));
  if (r.has("reuse_malloc_ns")) p.reuse_malloc_ns = non_negative(r.field("reuse_malloc_ns"));
  if (r.has("block_read_ns")) p.block_read_ns = non_negative(r.field("block_read_ns"));
  if (!seen.insert({p.threads, p.size_bytes}).second)
    r.fail("expected one layout point per (threads, size_bytes); this one repeats threads " + std::to_string(p.threads) +
           ", size_bytes " + std::to_string(p.size_bytes));
  return p;
}

LineSplitPoint read_line_split(const JsonReader& r, std::set<std::int64_t>& seen) {
  r.expect_object("a line split {\"request_bytes\", \"low_share\", \"high_share\"}");
  r.allow_only({"request_bytes", "low_share", "high_share"});
  LineSplitPoint p;
  p.request_bytes = r.field("request_bytes").integer(1, std::int64_t{1} << 40);
  const JsonReader low = r.field("low_share");
  p.low_share = low.number();
  if (!(p.low_share >= 0.0 && p.low_share <= 1.0)) low.fail("expected a share in 0..1, found " + std::to_string(p.low_share));
  const JsonReader high = r.field("high_share");
  p.high_share = high.number();
  if (!(p.high_share >= p.low_share && p.high_share <= 1.0))
    high.fail("expected a share in low_share (" + std::to_string(p.low_share) + ")..1, found " + std::to_string(p.high_share));
  if (!seen.insert(p.request_bytes).second) r.fail("expected one line split per request_bytes; this one repeats " + std::to_string(p.request_bytes));
  return p;
}

}  // namespace

std::vector<AllocatorCosts> read_allocator_costs(const JsonReader& r) {
  r.expect_object("allocator costs by allocator name {\"glibc\": {\"points\": [...], \"overhead_ratio\", ...}, ...}");
  std::vector<AllocatorCosts> out;
  for (const auto& item : r.json().items()) {
    const JsonReader entry = r.field(item.key().c_str());
    entry.expect_object(
        "one allocator's costs {\"points\", \"layout_points\" (optional), \"line_splits\" (optional), \"overhead_ratio\", \"host\", "
        "\"measured_at\", \"source\"}");
    entry.allow_only({"points", "layout_points", "line_splits", "overhead_ratio", "host", "measured_at", "source"});
    AllocatorCosts c;
    c.allocator = item.key();
    c.overhead_ratio = non_negative(entry.field("overhead_ratio"));
    c.host = entry.field("host").string(true);
    c.measured_at = entry.field("measured_at").string(true);
    c.source = entry.field("source").string(true);
    const JsonReader points = entry.field("points");
    points.expect_array("a list of measured points");
    if (points.size() == 0) points.fail("expected at least one measured point");
    std::set<std::pair<int, std::int64_t>> seen;
    for (std::size_t i = 0; i < points.size(); ++i) c.points.push_back(read_point(points.element(i), seen));
    if (entry.has("layout_points")) {  // optional: files measured before allocbench had them lack it
      const JsonReader layout = entry.field("layout_points");
      layout.expect_array("a list of measured layout points");
      std::set<std::pair<int, std::int64_t>> seen_layout;
      for (std::size_t i = 0; i < layout.size(); ++i) c.layout.push_back(read_layout_point(layout.element(i), seen_layout));
    }
    if (entry.has("line_splits")) {  // optional: files measured before allocbench had them lack it
      const JsonReader splits = entry.field("line_splits");
      splits.expect_array("a list of line splits by request size");
      std::set<std::int64_t> seen_splits;
      for (std::size_t i = 0; i < splits.size(); ++i) c.line_splits.push_back(read_line_split(splits.element(i), seen_splits));
    }
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::ordered_json allocator_costs_json(const std::vector<AllocatorCosts>& costs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const AllocatorCosts& c : costs) {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const AllocatorCostPoint& p : c.points) {
      points.push_back({{"threads", p.threads},
                        {"size_bytes", p.size_bytes},
                        {"malloc_ns", p.malloc_ns},
                        {"free_ns", p.free_ns},
                        {"realloc_ns", p.realloc_ns},
                        {"remote_free_ns", p.remote_free_ns}});
    }
    out[c.allocator] = {{"overhead_ratio", c.overhead_ratio},
                        {"host", c.host},
                        {"measured_at", c.measured_at},
                        {"source", c.source},
                        {"points", points}};
    if (!c.layout.empty()) {
      nlohmann::ordered_json layout = nlohmann::ordered_json::array();
      for (const AllocatorLayoutPoint& p : c.layout) {
        layout.push_back({{"threads", p.threads},
                          {"size_bytes", p.size_bytes},
                          {"scattered_realloc_ns", p.scattered_realloc_ns},
                          {"scattered_free_ns", p.scattered_free_ns},
                          {"dependent_write_ns", p.dependent_write_ns},
                          {"dependent_read_ns", p.dependent_read_ns}});
        if (p.shared_realloc_ns > 0.0) layout.back()["shared_realloc_ns"] = p.shared_realloc_ns;
        if (p.locked_write_ns > 0.0) layout.back()["locked_write_ns"] = p.locked_write_ns;
        if (p.reuse_malloc_ns > 0.0) layout.back()["reuse_malloc_ns"] = p.reuse_malloc_ns;
        if (p.block_read_ns > 0.0) layout.back()["block_read_ns"] = p.block_read_ns;
      }
      out[c.allocator]["layout_points"] = layout;
    }
    if (!c.line_splits.empty()) {
      nlohmann::ordered_json splits = nlohmann::ordered_json::array();
      for (const LineSplitPoint& p : c.line_splits)
        splits.push_back({{"request_bytes", p.request_bytes}, {"low_share", p.low_share}, {"high_share", p.high_share}});
      out[c.allocator]["line_splits"] = splits;
    }
  }
  return out;
}

}  // namespace numatwin::model
