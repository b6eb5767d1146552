#include "numatwin/model/dependent_miss_json.hpp"

#include <set>
#include <string>
#include <utility>

namespace numatwin::model {
namespace {

double at_least(const JsonReader& r, double low, const char* unit) {
  const double x = r.number();
  if (!(x >= low)) r.fail("expected a number >= " + std::to_string(static_cast<int>(low)) + " (" + unit + "), found " + std::to_string(x));
  return x;
}

}  // namespace

DependentMissGrid read_dependent_misses(const JsonReader& r) {
  r.expect_object("the dependent-miss grid {\"work_unit_ns\", \"points\", \"host\", \"measured_at\", \"source\"}");
  r.allow_only({"work_unit_ns", "points", "host", "measured_at", "source"});
  DependentMissGrid g;
  const JsonReader unit = r.field("work_unit_ns");
  g.work_unit_ns = unit.number();
  if (!(g.work_unit_ns > 0.0)) unit.fail("expected a number > 0 (ns per work unit), found " + std::to_string(g.work_unit_ns));
  g.host = r.field("host").string(true);
  g.measured_at = r.field("measured_at").string(true);
  g.source = r.field("source").string(true);
  const JsonReader points = r.field("points");
  points.expect_array(
      "a list of measured points {\"items_per_miss\", \"work_units\", \"miss_ns\", optional \"second_miss_ns\", \"split_head_ns\", "
      "\"split_miss_ns\"}");
  if (points.size() == 0) points.fail("expected at least one measured point");
  std::set<std::pair<double, double>> seen;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const JsonReader p = points.element(i);
    p.expect_object("a point {\"items_per_miss\", \"work_units\", \"miss_ns\", optional \"second_miss_ns\", \"split_head_ns\", \"split_miss_ns\"}");
    p.allow_only({"items_per_miss", "work_units", "miss_ns", "second_miss_ns", "split_head_ns", "split_miss_ns"});
    DependentMissPoint point;
    point.items_per_miss = at_least(p.field("items_per_miss"), 1.0, "items per dependent miss");
    point.work_units = at_least(p.field("work_units"), 0.0, "work units per item");
    point.miss_ns = at_least(p.field("miss_ns"), 0.0, "ns");
    for (const OptionalMissFigure& f : kOptionalMissFigures) {
      if (p.has(f.name)) point.*f.field = at_least(p.field(f.name), 0.0, "ns");
      if (i > 0 && (point.*f.field).has_value() != (g.points.front().*f.field).has_value())
        p.fail(std::string("expected ") + f.name + " at every point or at none; point 0 " + ((g.points.front().*f.field) ? "has" : "has not") +
               " it, this one " + ((point.*f.field) ? "has" : "has not"));
    }
    if (!seen.insert({point.items_per_miss, point.work_units}).second)
      p.fail("expected one point per (items_per_miss, work_units); this one repeats items_per_miss " + std::to_string(point.items_per_miss) +
             ", work_units " + std::to_string(point.work_units));
    g.points.push_back(point);
  }
  for (double k : grid_items_per_miss(g))
    for (double w : grid_work_units(g))
      if (!seen.contains({k, w}))
        points.fail("expected a complete grid (every items_per_miss with every work_units); missing items_per_miss " + std::to_string(k) +
                    ", work_units " + std::to_string(w));
  return g;
}

nlohmann::ordered_json dependent_misses_json(const DependentMissGrid& grid) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const DependentMissPoint& p : grid.points) {
    points.push_back({{"items_per_miss", p.items_per_miss}, {"work_units", p.work_units}, {"miss_ns", p.miss_ns}});
    for (const OptionalMissFigure& f : kOptionalMissFigures)
      if (p.*f.field) points.back()[f.name] = *(p.*f.field);
  }
  return {{"work_unit_ns", grid.work_unit_ns},
          {"host", grid.host},
          {"measured_at", grid.measured_at},
          {"source", grid.source},
          {"points", points}};
}

}  // namespace numatwin::model
