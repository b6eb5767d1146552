// The derivation of the operator costs from the microbenchmarks' timings (the formulas are at the
// top of cost_microbenchmarks.hpp), their JSON, and the cycle counter probe.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "numatwin/model/input_json.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/validate/measure/cost_microbenchmarks.hpp"

namespace numatwin::validate {
namespace {

using Json = nlohmann::ordered_json;

// A value with its range; operations carry the extremes (all operands of * and / are > 0).
struct Span {
  double mid;
  double lo;
  double hi;
};
Span operator+(Span a, Span b) { return {a.mid + b.mid, a.lo + b.lo, a.hi + b.hi}; }
Span operator-(Span a, Span b) { return {a.mid - b.mid, a.lo - b.hi, a.hi - b.lo}; }
Span operator*(Span a, double k) { return {a.mid * k, a.lo * k, a.hi * k}; }
Span operator*(Span a, Span b) {  // any signs: the extremes of the four corner products
  const double c[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  return {a.mid * b.mid, *std::min_element(std::begin(c), std::end(c)),
          *std::max_element(std::begin(c), std::end(c))};
}
Span operator/(Span a, Span b) {
  const auto over = [](double x, double y) { return y > 0.0 ? x / y : HUGE_VAL; };
  return {over(a.mid, b.mid), over(a.lo, b.hi), over(a.hi, b.lo)};
}

Span span_of(const CostTiming& t) { return {t.median_ns, t.low_ns, t.high_ns}; }

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

// `pattern` with each "{}" replaced by the next of `args`.
std::string fill(const std::string& pattern, std::initializer_list<std::string> args) {
  std::string out;
  auto arg = args.begin();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.compare(i, 2, "{}") == 0 && arg != args.end()) {
      out += *arg++;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

// The cost `name` from `v`: at least `floor` (said in the derivation when raised), the range
// around the value and at least +-kMinimumRelativeRange wide.
DerivedCost finish(const char* name, Span v, const char* unit, std::string derivation,
                   double floor) {
  DerivedCost c;
  c.name = name;
  c.unit = unit;
  c.value = v.mid;
  derivation += " = " + number(v.mid);
  if (!(c.value >= floor)) {
    derivation += fill("; below {} {}, raised to it", {number(floor), unit});
    c.value = floor;
  }
  c.low = std::clamp(std::min(v.lo, c.value * (1.0 - kMinimumRelativeRange)),
                     std::min(floor, c.value), c.value);
  c.high = std::max({v.hi, c.value * (1.0 + kMinimumRelativeRange), c.value});
  c.derivation = std::move(derivation);
  return c;
}

// llc_usable_share from the random walks (cost_microbenchmarks.hpp), or nothing without them.
struct UsableShare {
  double value = 1.0;
  double low = 1.0;
  double high = 1.0;
  std::string text;
};

std::optional<UsableShare> usable_llc_share(const CostTimings& t) {
  if (!t.has("walk_private") || !t.has("walk_memory") || !(t.private_cache_bytes > 0.0) ||
      !(t.llc_bytes > 0.0) || !(t.memory_bytes > 0.0))
    return std::nullopt;
  struct Point {
    double bytes;
    double ns;
  };
  std::vector<Point> sweep;
  for (const CostTiming& x : t.timings) {
    if (x.name.rfind("walk_", 0) != 0) continue;
    const std::string size = x.name.substr(5);
    if (size.empty() || size.find_first_not_of("0123456789") != std::string::npos) continue;
    sweep.push_back({std::stod(size) * 1024.0, x.median_ns});
  }
  if (sweep.size() < 2) return std::nullopt;
  const double w_private = t.at("walk_private").median_ns;
  const double w_memory = t.at("walk_memory").median_ns;
  if (!(w_memory > w_private)) return std::nullopt;
  const double p = t.private_cache_bytes;
  const double llc = t.llc_bytes;
  const auto shares = [&](double u, double bytes) {
    const double hp = std::min(1.0, p / bytes);
    return std::pair{hp, std::max(hp, std::min(1.0, u * llc / bytes))};
  };
  // Squared log error of (u, w_llc) over the sweep; HUGE_VAL where walk_memory's equation gives
  // no w_mem >= w_llc.
  const auto error_of = [&](double u, double w_llc) {
    const auto [hp_m, h_m] = shares(u, t.memory_bytes);
    if (h_m >= 1.0) return HUGE_VAL;
    // walk_memory's equation gives w_mem: w_memory = hp w_private + (h - hp) w_llc + (1 - h) w_mem.
    const double w_mem = (w_memory - hp_m * w_private - (h_m - hp_m) * w_llc) / (1.0 - h_m);
    if (!(w_mem >= w_llc)) return HUGE_VAL;
    double error = 0.0;
    for (const Point& x : sweep) {
      const auto [hp, h] = shares(u, x.bytes);
      const double model = hp * w_private + (h - hp) * w_llc + (1.0 - h) * w_mem;
      error += std::pow(std::log(model / x.ns), 2);
    }
    return error;
  };
  // A grid of 97 x 97 over log u in [-2, 0] and w_llc in [walk_private, walk_memory], then one of
  // 97 x 97 over the cell around its best point.
  constexpr int kGrid = 97;
  double best = HUGE_VAL;
  std::vector<double> best_of_u(kGrid, HUGE_VAL);
  std::vector<double> us(kGrid);
  double best_u = 1.0;
  double best_llc = w_private;
  const double llc_step = (w_memory - w_private) / (kGrid - 1);
  for (int i = 0; i < kGrid; ++i) {
    const double u = std::pow(10.0, -2.0 + 2.0 * i / (kGrid - 1));  // 0.01 .. 1, log spaced
    us[static_cast<std::size_t>(i)] = u;
    for (int j = 0; j < kGrid; ++j) {
      const double w_llc = w_private + llc_step * j;
      const double error = error_of(u, w_llc);
      best_of_u[static_cast<std::size_t>(i)] =
          std::min(best_of_u[static_cast<std::size_t>(i)], error);
      if (error < best) {
        best = error;
        best_u = u;
        best_llc = w_llc;
      }
    }
  }
  const double u_step = std::pow(10.0, 2.0 / (kGrid - 1));
  const double u0 = best_u;
  const double llc0 = best_llc;
  for (int i = 0; i < kGrid; ++i) {
    const double u = std::min(1.0, u0 * std::pow(u_step, -1.0 + 2.0 * i / (kGrid - 1)));
    for (int j = 0; j < kGrid; ++j) {
      const double w_llc = std::max(w_private, llc0 + llc_step * (-1.0 + 2.0 * j / (kGrid - 1)));
      const double error = error_of(u, w_llc);
      if (error < best) {
        best = error;
        best_u = u;
        best_llc = w_llc;
      }
    }
  }
  if (!std::isfinite(best)) return std::nullopt;
  UsableShare out;
  out.value = best_u;
  out.low = best_u;
  out.high = best_u;
  for (int i = 0; i < kGrid; ++i) {
    if (best_of_u[static_cast<std::size_t>(i)] <= 2.0 * best + 1e-4) {
      out.low = std::min(out.low, us[static_cast<std::size_t>(i)]);
      out.high = std::max(out.high, us[static_cast<std::size_t>(i)]);
    }
  }
  std::string points;
  for (const Point& x : sweep)
    points +=
        (points.empty() ? "" : ", ") + number(x.bytes / 1048576.0) + " MiB " + number(x.ns) + " ns";
  out.text = fill(
      "the random walks' latency against footprint (walk_private {} ns; {}; walk_memory {} ns), "
      "fitted by "
      "hp x walk_private + (h - hp) x w_llc + (1 - h) x w_mem with h = min(1, u x {} MiB / F): "
      "w_llc = {} ns, "
      "rms log error {}",
      {number(w_private), points, number(w_memory), number(llc / 1048576.0), number(best_llc),
       number(std::sqrt(best / static_cast<double>(sweep.size())))});
  return out;
}

}  // namespace

const CostTiming& CostTimings::at(const std::string& name) const {
  for (const CostTiming& t : timings)
    if (t.name == name) return t;
  throw std::invalid_argument("operator costs: the timing " + name + " is missing");
}

bool CostTimings::has(const std::string& name) const {
  return std::any_of(timings.begin(), timings.end(),
                     [&](const CostTiming& t) { return t.name == name; });
}

namespace {

// A stream share (cost_microbenchmarks.hpp): a loop reading `bytes_per_unit` a unit, `cached`
// ns a unit over a cached input and `streamed` over memory, on a core of `m` miss buffers.
std::optional<DerivedCost> stream_share(const char* name, const CostTimings& timings, const char* cached_name,
                                        const char* streamed_name, double bytes_per_unit, double m) {
  if (!(m > 0.0) || !timings.has(cached_name) || !timings.has(streamed_name)) return std::nullopt;
  const Span latency = span_of(timings.at("chase_memory"));
  const Span cached = span_of(timings.at(cached_name));
  const Span streamed = span_of(timings.at(streamed_name));
  std::string text = fill("chase_memory x {} B / (64 B x {} x M) = {} x {} / (64 x {} x {})",
                          {number(bytes_per_unit), streamed_name, number(latency.mid), number(bytes_per_unit),
                           number(streamed.mid), number(m)});
  Span share = latency * (bytes_per_unit / 64.0 / m) / streamed;
  if (!(streamed.mid > cached.mid)) {
    text = fill("1: {} = {} ns is no slower than {} = {} ns (the stream costs nothing beyond the loop's work)",
                {streamed_name, number(streamed.mid), cached_name, number(cached.mid)});
    share = {1.0, 1.0, 1.0};
  } else if (share.mid > 1.0) {
    text += fill(" = {}: more than all the miss buffers, taken as 1", {number(share.mid)});
    share = {1.0, std::min(1.0, share.lo), 1.0};
  } else {
    text += fill(" ({} lines in flight; {} over a cached input: {} ns)",
                 {number(share.mid * m), cached_name, number(cached.mid)});
  }
  DerivedCost c = finish(name, share, "share", std::move(text), 0.001);
  c.high = std::min(c.high, 1.0);
  c.value = std::min(c.value, 1.0);
  c.low = std::min(c.low, c.value);
  return c;
}

}  // namespace

std::vector<DerivedCost> derive_operator_costs(const CostTimings& timings, double f, double miss_buffers_per_core) {
  if (!(f > 0.0) || !std::isfinite(f))
    throw std::invalid_argument("operator costs: the frequency must be > 0 GHz");
  const Span chase_private = span_of(timings.at("chase_private"));
  const Span chase_llc = span_of(timings.at("chase_llc"));
  const Span chase_memory = span_of(timings.at("chase_memory"));
  const Span random_memory = span_of(timings.at("random_memory"));
  const Span histogram = span_of(timings.at("histogram"));
  const Span count_plain = span_of(timings.at("count_plain"));
  const Span count_atomic = span_of(timings.at("count_atomic"));
  const Span count_llc = span_of(timings.at("count_llc"));
  const Span index_probe = span_of(timings.at("index_probe"));
  const Span join_build = span_of(timings.at("join_build"));
  const Span join_probe = span_of(timings.at("join_probe"));
  const Span group_update = span_of(timings.at("group_update"));
  const Span radix_scatter = span_of(timings.at("radix_scatter"));
  const Span partition_build = span_of(timings.at("partition_build"));
  const Span partition_probe = span_of(timings.at("partition_probe"));
  const Span sort_16 = span_of(timings.at("sort_16"));
  const Span sort_256 = span_of(timings.at("sort_256"));
  const Span merge = span_of(timings.at("merge"));
  const Span consumer = span_of(timings.at("consumer_sum"));
  const std::optional<UsableShare> usable = usable_llc_share(timings);
  const double u = usable ? usable->value : 1.0;
  const double h = std::clamp(timings.memory_llc_share * u, 0.0, 1.0);

  std::vector<DerivedCost> out;
  out.push_back(finish("cycles_per_element", consumer * f, "cycles",
                       fill("f x consumer_sum = {} x {}", {number(f), number(consumer.mid)}),
                       0.01));
  const Span scan = histogram * f;
  out.push_back(finish("scan_cycles_per_tuple", scan, "cycles",
                       fill("f x histogram = {} x {}", {number(f), number(histogram.mid)}), 0.01));
  // L first: the table loops' derivations take the private hits' share of their time out with it.
  const Span miss_ns = chase_llc * h + chase_memory * (1.0 - h);
  // The probe loop's core work: empty_probe (the same loop on an empty table in the private
  // cache); reports from before it subtract join_probe (a loop that finds its keys, whose
  // branches differ).
  const bool has_empty = timings.has("empty_probe");
  const Span core = has_empty ? span_of(timings.at("empty_probe")) : join_probe;
  const std::string core_name = has_empty ? "empty_probe" : "join_probe";
  Span lines = miss_ns / (random_memory - core);
  std::string lines_text = fill(
      "(h x chase_llc + (1 - h) x chase_memory) / (random_memory - {}) = ({} x {} + {} x "
      "{}) / ({} - {})",
      {core_name, number(h), number(chase_llc.mid), number(1.0 - h), number(chase_memory.mid),
       number(random_memory.mid), number(core.mid)});
  // 32: the kernel fit's upper bound (validation_suite.cpp), already 2-3x the line fill buffers
  // of any core the project knows. A miss time that is (nearly) hidden by the loop's work would
  // otherwise divide by a difference of two noisy medians (20247 lines once, on this VM, when
  // random_memory came out 0.01 ns above the loop's work).
  constexpr double kMostLinesInFlight = 32.0;
  if (!(random_memory.mid > core.mid)) {
    lines = {kMostLinesInFlight, kMostLinesInFlight, kMostLinesInFlight};
    lines_text +=
        ": the misses cost no time beyond the loop's work; taken as 32 (the fit's largest)";
  } else if (lines.mid > kMostLinesInFlight) {
    lines_text += fill(" = {}: more than the fit's largest, 32, taken instead (the misses are "
                       "nearly hidden behind the loop's work)",
                       {number(lines.mid)});
    lines = {kMostLinesInFlight, std::min(lines.lo, kMostLinesInFlight), kMostLinesInFlight};
  }
  lines.hi = std::min(lines.hi, kMostLinesInFlight);
  lines.lo = std::max(1.0, std::min(lines.lo, lines.mid));
  const Span hit_cycles = chase_private * f / lines;  // f x private_hit_ns / L
  const std::string hit_text =
      fill("{} x {} / {}", {number(f), number(chase_private.mid), number(lines.mid)});
  // LLC hits as the table loop pays them: count_llc - count_plain = (hp x p + (h - hp) x llc - p) /
  // L (h, hp: the model's LLC and private-cache shares of count_llc's table).
  const double h_llc = std::clamp(std::min(timings.llc_table_llc_share, 8.0 * u), 0.0, 1.0);
  const double h_own = std::clamp(timings.llc_table_private_share, 0.0, 1.0);
  Span llc_hit = chase_llc;
  std::string llc_text = fill(
      "chase_llc (count_llc's table gives the model no LLC hit beyond its private share: h = {}, "
      "hp = {})",
      {number(h_llc), number(h_own)});
  const Span inverted = ((count_llc - count_plain) * lines + chase_private * (1.0 - h_own)) * (1.0 / std::max(1e-9, h_llc - h_own));
  if (h_llc - h_own > 0.05 && inverted.mid > chase_memory.mid) {
    // An LLC hit dearer than a memory access: the timings contradict the model's shares (a small
    // h - hp magnifies the loops' difference: in a CI run on a loaded host the usable share came
    // out 0.081, h - hp 0.148, and this gave 1,168 ns where chase_llc took 141). Said, not used.
    llc_text = fill(
        "chase_llc: inverting count_llc's loop gave (L x (count_llc - count_plain) + (1 - hp) x "
        "private_hit_ns) / (h - hp) = ({} x ({} - {}) + {} x {}) / ({} - {}) = {} ns, more than a "
        "memory access (chase_memory = {} ns): the timings contradict the model's shares, so the "
        "dependent load's latency is taken",
        {number(lines.mid), number(count_llc.mid), number(count_plain.mid), number(1.0 - h_own), number(chase_private.mid),
         number(h_llc), number(h_own), number(inverted.mid), number(chase_memory.mid)});
  } else if (h_llc - h_own > 0.05) {
    llc_hit = inverted;
    llc_text = fill(
        "(L x (count_llc - count_plain) + (1 - hp) x private_hit_ns) / (h - hp) = ({} x ({} - {}) "
        "+ {} x {}) / ({} - {}) "
        "(a dependent load: chase_llc = {} ns)",
        {number(lines.mid), number(count_llc.mid), number(count_plain.mid), number(1.0 - h_own),
         number(chase_private.mid), number(h_llc), number(h_own), number(chase_llc.mid)});
  }
  out.push_back(finish("hash_cycles_per_tuple", count_plain * f - scan - hit_cycles, "cycles",
                       fill("f x count_plain - scan - f x private_hit_ns / L = {} x {} - {} - {}",
                            {number(f), number(count_plain.mid), number(scan.mid), hit_text}),
                       kMinimumCycles));
  const Span join = (join_build + join_probe) * (0.5 * f) - scan - hit_cycles;
  out.push_back(finish("join_cycles_per_tuple", join, "cycles",
                       fill("f x (join_build + join_probe) / 2 - scan - f x private_hit_ns / L = {} x ({} + {}) / 2 - {} - {}",
                            {number(f), number(join_build.mid), number(join_probe.mid), number(scan.mid), hit_text}),
                       kMinimumCycles));
  // The index join's loop, inverted the way the model charges it (sim/plan/operator_plan.hpp:
  // index_levels): of its d levels, p in the private cache (private_hit_ns), c - p in the LLC
  // (llc_hit_ns), d - c in memory (the misses' h-weighted latency), each over L; the rest of
  // f x index_probe, less the scan, is d x index_cycles_per_level.
  const int depth = std::max(1, timings.index_levels);
  // A report without cache sizes: the microbenchmark's index is sized to the LLC (LLC / 8 bytes),
  // so all its levels are taken as LLC hits, none as private ones.
  const double llc_bytes = timings.llc_bytes > 0.0 ? timings.llc_bytes * u : HUGE_VAL;
  const sim::IndexLevels levels = sim::index_levels(depth, timings.private_cache_bytes, llc_bytes);
  const Span index_waits = (chase_private * static_cast<double>(levels.in_private) +
                            llc_hit * static_cast<double>(levels.in_llc - levels.in_private) +
                            miss_ns * static_cast<double>(depth - levels.in_llc)) * f / lines;
  out.push_back(finish("index_cycles_per_level", (index_probe * f - scan - index_waits) * (1.0 / depth), "cycles",
                       fill("(f x index_probe - scan - f x (p x private_hit_ns + (c - p) x llc_hit_ns + (d - c) x miss) / L) / d "
                            "= ({} x {} - {} - {} x ({} x {} + {} x {} + {} x {}) / {}) / {}",
                            {number(f), number(index_probe.mid), number(scan.mid), number(f), std::to_string(levels.in_private),
                             number(chase_private.mid), std::to_string(levels.in_llc - levels.in_private), number(llc_hit.mid),
                             std::to_string(depth - levels.in_llc), number(miss_ns.mid), number(lines.mid), std::to_string(depth)}),
                       kMinimumCycles));
  out.push_back(finish("group_cycles_per_tuple", group_update * f - scan - hit_cycles, "cycles",
                       fill("f x group_update - scan - f x private_hit_ns / L = {} x {} - {} - {}",
                            {number(f), number(group_update.mid), number(scan.mid), hit_text}),
                       kMinimumCycles));
  out.push_back(finish("random_lines_in_flight", lines, "lines", lines_text, 1.0));
  out.push_back(finish("llc_hit_ns", llc_hit, "ns", llc_text, 0.1));
  if (usable) {
    DerivedCost c;
    c.name = "llc_usable_share";
    c.unit = "share";
    c.value = usable->value;
    c.low = std::min(usable->low, c.value * (1.0 - kMinimumRelativeRange));
    c.high = std::min(1.0, std::max(usable->high, c.value * (1.0 + kMinimumRelativeRange)));
    c.derivation = usable->text + " = " + number(c.value);
    out.push_back(std::move(c));
  }
  out.push_back(finish("private_hit_ns", chase_private, "ns",
                       fill("chase_private = {}", {number(chase_private.mid)}), 0.1));
  if (timings.has("count_contended")) {
    // Two workers on a table in their private caches: s = (2 - 1) / 2 x 1 of the updates find
    // their line modified by the other.
    const Span contended = span_of(timings.at("count_contended"));
    std::string text = fill(
        "(count_contended - count_atomic) / s, s = (k - 1) / k x h_private = 1 / 2 x 1: ({} - {}) "
        "x 2",
        {number(contended.mid), number(count_atomic.mid)});
    if (timings.has("shared_line"))
      text +=
          fill(" (the ping-pong's handover: {} ns)", {number(timings.at("shared_line").median_ns)});
    out.push_back(
        finish("shared_line_transfer_ns", (contended - count_atomic) * 2.0, "ns", text, 0.1));
  }
  out.push_back(finish("atomic_update_ns", count_atomic - count_plain, "ns",
                       fill("count_atomic - count_plain = {} - {}",
                            {number(count_atomic.mid), number(count_plain.mid)}),
                       0.1));
  // MEDIAN's selection per value: the geometric mean of the two group sizes, the range both.
  const Span per_16 = sort_16 * f;
  const Span per_256 = sort_256 * f;
  const Span select{std::sqrt(per_16.mid * per_256.mid), std::min(per_16.lo, per_256.lo),
                    std::max(per_16.hi, per_256.hi)};
  out.push_back(finish("select_cycles_per_value", select, "cycles",
                       fill("geometric mean of f x sort_16 = {} and f x sort_256 = {} (range: both)",
                            {number(per_16.mid), number(per_256.mid)}),
                       kMinimumCycles));
  if (timings.has("sort_tuples") && timings.sort_run_tuples >= 2.0) {
    const double log2_m = std::log2(timings.sort_run_tuples);
    const Span sort_tuples = span_of(timings.at("sort_tuples"));
    out.push_back(finish("sort_cycles_per_comparison", sort_tuples * (f / log2_m), "cycles",
                         fill("f x sort_tuples / log2 m = {} x {} / {} (m = {} tuples)",
                              {number(f), number(sort_tuples.mid), number(log2_m),
                               number(timings.sort_run_tuples)}),
                         kMinimumCycles));
  }
  constexpr double kDimensionsPerFact = 2048.0 / 8192.0;
  out.push_back(finish("merge_cycles_per_tuple", merge * f - scan * kDimensionsPerFact, "cycles",
                       fill("f x merge - (2048 / 8192) x scan = {} x {} - 0.25 x {}",
                            {number(f), number(merge.mid), number(scan.mid)}),
                       kMinimumCycles));
  out.push_back(finish("partition_cycles_per_tuple", radix_scatter * f, "cycles",
                       fill("f x radix_scatter = {} x {}", {number(f), number(radix_scatter.mid)}),
                       kMinimumCycles));
  const Span partition_join = (partition_build + partition_probe) * (0.5 * f) - scan - hit_cycles;
  out.push_back(finish("partition_join_cycles_per_tuple", partition_join, "cycles",
                       fill("f x (partition_build + partition_probe) / 2 - scan - f x "
                            "private_hit_ns / L = {} x ({} + {}) / 2 - {} - {}",
                            {number(f), number(partition_build.mid), number(partition_probe.mid),
                             number(scan.mid), hit_text}),
                       kMinimumCycles));
  if (timings.has("filter")) {
    const Span filter = span_of(timings.at("filter"));
    out.push_back(finish("filter_cycles_per_cell", filter * f, "cycles",
                         fill("f x filter = {} x {}", {number(f), number(filter.mid)}), kMinimumCycles));
  }
  if (auto s = stream_share("table_stream_share", timings, "count_private", "count_stream", 16.0, miss_buffers_per_core))
    out.push_back(std::move(*s));
  if (auto s = stream_share("filter_stream_share", timings, "filter", "filter_stream", 8.0, miss_buffers_per_core))
    out.push_back(std::move(*s));
  return out;
}

void apply_derived_costs(const std::vector<DerivedCost>& derived, sim::OperatorCosts& c,
                         double& cycles_per_element) {
  for (const DerivedCost& d : derived) {
    if (d.name == "cycles_per_element") {
      cycles_per_element = d.value;
      continue;
    }
    sim::cost_field(c, d.name) = d.value;  // throws std::invalid_argument for an unknown name
  }
}

Json operator_costs_json(const CostTimings& timings, const std::vector<DerivedCost>& derived,
                         double frequency_ghz, const std::string& frequency_source) {
  Json list = Json::array();
  for (const CostTiming& t : timings.timings)
    list.push_back({{"name", t.name},
                    {"median_ns", t.median_ns},
                    {"low_ns", t.low_ns},
                    {"high_ns", t.high_ns},
                    {"unit", t.unit},
                    {"loop", t.loop}});
  Json costs = Json::array();
  for (const DerivedCost& c : derived)
    costs.push_back({{"name", c.name},
                     {"value", c.value},
                     {"low", c.low},
                     {"high", c.high},
                     {"unit", c.unit},
                     {"derivation", c.derivation}});
  // The machine's load when the report was written (the kernels' wall times, unlike these
  // timings, grow with it): /proc/loadavg's first three fields.
  std::string load = "unknown";
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    char text[64] = {};
    if (std::fgets(text, sizeof text, f) != nullptr) {
      load = text;
      std::size_t cut = 0;
      for (int fields = 0; cut < load.size() && fields < 3; ++cut)
        if (load[cut] == ' ') ++fields;
      load = load.substr(0, cut > 0 ? cut - 1 : 0);
    }
    std::fclose(f);
  }
  return Json{{"frequency_ghz", frequency_ghz},
              {"frequency_source", frequency_source},
              {"cycle_counter", cycle_counter_state()},
              {"load_average", load},
              {"cpu", timings.cpu},
              {"memory_llc_share", timings.memory_llc_share},
              {"llc_table_private_share", timings.llc_table_private_share},
              {"llc_table_llc_share", timings.llc_table_llc_share},
              {"index_levels", timings.index_levels},
              {"sort_run_tuples", timings.sort_run_tuples},
              {"private_cache_bytes", timings.private_cache_bytes},
              {"llc_bytes", timings.llc_bytes},
              {"memory_bytes", timings.memory_bytes},
              {"timings", list},
              {"costs", costs},
              {"notes", timings.notes}};
}

CostTimings cost_timings_from_json(const model::JsonReader& section) {
  section.expect_object("the operator costs section");
  CostTimings out;
  out.cpu = static_cast<int>(section.field("cpu").integer(-1, 1 << 20));
  out.memory_llc_share = section.field("memory_llc_share").number();
  if (!(out.memory_llc_share >= 0.0 && out.memory_llc_share <= 1.0))
    section.field("memory_llc_share").fail("expected a share in [0, 1]");
  for (const auto& [key, field] :
       {std::pair{"llc_table_private_share", &out.llc_table_private_share},
        std::pair{"llc_table_llc_share", &out.llc_table_llc_share}}) {
    *field = section.field(key).number();
    if (!(*field >= 0.0 && *field <= 1.0)) section.field(key).fail("expected a share in [0, 1]");
  }
  out.index_levels = section.field("index_levels").small_integer(0);
  if (section.has("sort_run_tuples")) {  // absent: a report from before sort_tuples
    out.sort_run_tuples = section.field("sort_run_tuples").number();
    if (!(out.sort_run_tuples >= 0.0)) section.field("sort_run_tuples").fail("expected a number of tuples >= 0");
  }
  for (const auto& [key, field] :
       {std::pair{"private_cache_bytes", &out.private_cache_bytes},
        std::pair{"llc_bytes", &out.llc_bytes}, std::pair{"memory_bytes", &out.memory_bytes}}) {
    if (!section.has(key)) continue;  // a report from before the LLC sweep
    *field = section.field(key).number();
    if (!(*field >= 0.0)) section.field(key).fail("expected a number of bytes >= 0");
  }
  const model::JsonReader list = section.field("timings");
  list.expect_array("the microbenchmarks' timings");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const model::JsonReader t = list.element(i);
    t.expect_object("a timing");
    CostTiming timing;
    timing.name = t.field("name").string(true);
    timing.median_ns = t.field("median_ns").number();
    timing.low_ns = t.field("low_ns").number();
    timing.high_ns = t.field("high_ns").number();
    if (!(timing.median_ns > 0.0 && timing.low_ns > 0.0 && timing.low_ns <= timing.median_ns &&
          timing.median_ns <= timing.high_ns))
      t.fail("expected 0 < low_ns <= median_ns <= high_ns");
    timing.unit = t.field("unit").string(true);
    timing.loop = t.field("loop").string(false);
    out.timings.push_back(std::move(timing));
  }
  if (section.has("notes")) out.notes = section.field("notes").string_list();
  return out;
}

std::string cycle_counter_state() {
  std::FILE* pipe = popen("perf stat -x, -e cycles true 2>&1", "r");
  if (pipe == nullptr) return "not measured: cannot run perf";
  std::string output;
  char chunk[256];
  while (std::fgets(chunk, sizeof chunk, pipe) != nullptr) output += chunk;
  const int status = pclose(pipe);
  if (output.find("not supported") != std::string::npos)
    return "not measured: perf stat -e cycles says <not supported> (no hardware counters here, "
           "e.g. a VM); cycles are ns x frequency_ghz";
  if (status != 0)
    return "not measured: perf stat -e cycles failed (perf missing or not permitted); cycles are "
           "ns x frequency_ghz";
  return "perf stat counts cycles here, but the microbenchmarks do not read it: cycles are ns x "
         "frequency_ghz";
}

}  // namespace numatwin::validate
