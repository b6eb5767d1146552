#include "io/published_io.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "numatwin/model/file_io.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/input_json.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "io/published_adaptive_io.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "options/workload_options.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::json;
using model::JsonReader;

constexpr std::size_t kMaxSummaryChars = 60;

class Loader {
 public:
  explicit Loader(PublishedData& data) : data_(&data) {}

  void read_file(const std::filesystem::path& path) { read_text(model::read_input_file(path), path.string()); }

  void read_text(std::string_view text, const std::string& file) {
    file_ = file;
    Json document;
    try {
      document = Json::parse(text);
    } catch (const Json::parse_error& e) {
      throw model::InputError(file_, "",
                              "not valid JSON (byte " + std::to_string(e.byte) +
                                  "): expected a published-figures file");
    } catch (const Json::exception& e) {
      throw model::InputError(file_, "", std::string("unreadable JSON (") + e.what() + ")");
    }
    const JsonReader root(document, "", file_);
    root.expect_object("a published-figures file {\"study\", \"title\", \"entries\"}");
    root.allow_only({"study", "title", "entries"});
    const std::string study = root.field("study").string(true);
    (void)root.field("title").string(true);
    const JsonReader entries = root.field("entries");
    entries.expect_array("a list of entries");
    if (entries.size() == 0) entries.fail("expected at least one entry");
    for (std::size_t i = 0; i < entries.size(); ++i)
      data_->entries.push_back(read_entry(entries.element(i), study));
  }

 private:
  sim::PublishedEntry read_entry(const JsonReader& e, const std::string& study) {
    e.expect_object("an entry");
    e.allow_only({"id", "where", "source", "summary", "statement", "published", "predict",
                  "tolerance", "must_hold", "note", "consistency_only", "basis"});
    sim::PublishedEntry entry;
    entry.study = study;
    const JsonReader id = e.field("id");
    entry.id = id.string(true);
    for (char c : entry.id) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
        id.fail("expected an id of lower-case letters, digits and '-'");
    }
    if (!ids_.insert(entry.id).second)
      id.fail("expected a unique id; \"" + entry.id + "\" is used by an earlier entry");
    entry.where = e.field("where").string(true);
    entry.source = e.field("source").string(true);
    const JsonReader summary = e.field("summary");
    entry.summary = summary.string(true);
    if (entry.summary.size() > kMaxSummaryChars) {
      summary.fail("expected at most " + std::to_string(kMaxSummaryChars) +
                   " characters (it is a table cell; the statement has the rest)");
    }
    entry.statement = e.field("statement").string(true);

    const JsonReader predict = e.field("predict");
    predict.expect_object("the question that predicts the figure {\"kind\": ...}");
    const JsonReader kind_field = predict.field("kind");
    const std::string kind = kind_field.string(true);
    const JsonReader published = e.field("published");
    published.expect_object("the published figure");
    sim::PublishedQuestion& q = entry.question;
    if (kind == "product") {
      q.kind = sim::QuestionKind::kProduct;
      read_product(predict, q);
      read_figure(published, q.figure);
      entry.published_text = figure_text(q.figure);
    } else if (kind == "crossover") {
      q.kind = sim::QuestionKind::kCrossover;
      read_crossover(predict, q);
      published.allow_only({"first_winner", "last_winner"});
      const JsonReader first = published.field("first_winner");
      const JsonReader last = published.field("last_winner");
      q.first_winner = first.string(true);
      q.last_winner = last.string(true);
      for (const JsonReader* w : {&first, &last}) {
        const std::string label = w->string(true);
        if (label != q.variants[0].label && label != q.variants[1].label) {
          w->fail("expected the label of one of the two variants (\"" + q.variants[0].label +
                  "\" or \"" + q.variants[1].label + "\")");
        }
      }
      entry.published_text = q.first_winner + " first, " + q.last_winner + " last";
    } else if (kind == "stealing-threshold") {
      q.kind = sim::QuestionKind::kStealing;
      predict.allow_only({"kind", "topology"});
      q.stealing_topology = topology_index(predict.field("topology"));
      entry.published_text = read_text(published);
    } else if (kind == "cannot-speak") {
      q.kind = sim::QuestionKind::kCannotSpeak;
      predict.allow_only({"kind", "reason"});
      q.reason = predict.field("reason").string(true);
      entry.published_text = read_text(published);
    } else {
      kind_field.fail("expected product, crossover, stealing-threshold or cannot-speak, found \"" +
                      kind + "\"");
    }

    const JsonReader must_hold = e.field("must_hold");
    entry.must_hold = must_hold.boolean();
    if (e.has("note")) entry.note = e.field("note").string(true);
    if (q.kind == sim::QuestionKind::kCannotSpeak) {
      if (entry.must_hold)
        must_hold.fail(
            "expected false: a statement the model cannot speak to cannot be required to hold");
      if (e.has("tolerance"))
        e.field("tolerance")
            .fail("expected no tolerance for a statement the model cannot speak to");
      for (const char* key : {"consistency_only", "basis"}) {
        if (e.has(key))
          e.field(key).fail("expected no such field for a statement the model cannot speak to");
      }
      return entry;
    }
    if (!entry.must_hold && entry.note.empty()) {
      must_hold.fail(
          "must_hold is false: expected a \"note\" saying why (a known miss and its issue, a "
          "tendency only, ...)");
    }
    const JsonReader tolerance = e.field("tolerance");
    tolerance.expect_object("the tolerance {\"rationale\", and \"relative\" for a product}");
    if (q.kind == sim::QuestionKind::kProduct) {
      tolerance.allow_only({"relative", "rationale"});
      const JsonReader relative = tolerance.field("relative");
      q.tolerance_relative = relative.number();
      if (q.tolerance_relative < 0.0 || q.tolerance_relative >= 1.0)
        relative.fail("expected a relative tolerance in [0, 1)");
      entry.published_text += tolerance_text(q.figure.relation, q.tolerance_relative);
    } else {
      tolerance.allow_only({"rationale"});
    }
    entry.tolerance_rationale = tolerance.field("rationale").string(true);
    entry.consistency_only = e.field("consistency_only").boolean();
    entry.basis = e.field("basis").string(true);
    return entry;
  }

  static std::string read_text(const JsonReader& published) {
    published.allow_only({"text"});
    return published.field("text").string(true);
  }

  static sim::PublishedMetric read_metric(const JsonReader& field) {
    const std::string text = field.string(true);
    if (text == "gbps") return sim::PublishedMetric::kGbps;
    if (text == "mtuples_per_s") return sim::PublishedMetric::kMtuplesPerS;
    if (text == "time_s") return sim::PublishedMetric::kTimeS;
    if (text == "local_access_ratio") return sim::PublishedMetric::kLocalAccessRatio;
    if (text == "dram_energy_j") return sim::PublishedMetric::kDramEnergyJ;
    if (text == "distinct_placements") return sim::PublishedMetric::kDistinctPlacements;
    if (text == "queries_per_s") return sim::PublishedMetric::kQueriesPerS;
    field.fail("expected gbps, mtuples_per_s, time_s, local_access_ratio, dram_energy_j, distinct_placements or queries_per_s, found \"" +
               text + "\"");
  }

  static void read_figure(const JsonReader& published, sim::PublishedFigure& figure) {
    published.allow_only({"relation", "value", "unit"});
    const JsonReader relation = published.field("relation");
    const std::string text = relation.string(true);
    if (text == "about") {
      figure.relation = sim::PublishedRelation::kAbout;
    } else if (text == "<") {
      figure.relation = sim::PublishedRelation::kBelow;
    } else if (text == "<=") {
      figure.relation = sim::PublishedRelation::kAtMost;
    } else if (text == ">") {
      figure.relation = sim::PublishedRelation::kAbove;
    } else if (text == ">=") {
      figure.relation = sim::PublishedRelation::kAtLeast;
    } else {
      relation.fail("expected about, <, <=, > or >=, found \"" + text + "\"");
    }
    const JsonReader value = published.field("value");
    figure.value = value.number();
    if (!(figure.value > 0.0)) value.fail("expected a number > 0 (the ratio column divides by it)");
    figure.unit = published.field("unit").string(true);
  }

  void read_product(const JsonReader& predict, sim::PublishedQuestion& q) {
    predict.allow_only({"kind", "metric", "terms"});
    std::optional<sim::PublishedMetric> metric;
    if (predict.has("metric")) metric = read_metric(predict.field("metric"));
    const JsonReader terms = predict.field("terms");
    terms.expect_array("the runs whose metrics multiply");
    if (terms.size() == 0) terms.fail("expected at least one term");
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const JsonReader t = terms.element(i);
      t.expect_object("a term {\"run\" or \"best_of\", \"power\", \"metric\"}");
      t.allow_only({"run", "best_of", "power", "metric"});
      sim::PublishedTerm term;
      if (t.has("metric")) {
        term.metric = read_metric(t.field("metric"));
      } else if (metric) {
        term.metric = *metric;
      } else {
        (void)t.field("metric");  // fails: no metric here nor in the question
      }
      if (t.has("power")) {
        const JsonReader power = t.field("power");
        term.power = power.number();
        if (term.power == 0.0) power.fail("expected a non-zero power");
      }
      if (t.has("run") == t.has("best_of")) t.fail("expected either a \"run\" or a \"best_of\" list of runs");
      if (t.has("run")) {
        term.run = read_run(t.field("run"), false);
        check_metric_fits(t.field("run"), term.run, term.metric);
      } else {
        const JsonReader runs = t.field("best_of");
        runs.expect_array("the runs whose best metric is the term");
        if (runs.size() < 2) runs.fail("expected at least two runs");
        for (std::size_t k = 0; k < runs.size(); ++k) {
          term.best_of.push_back(read_run(runs.element(k), false));
          check_metric_fits(runs.element(k), term.best_of.back(), term.metric);
        }
      }
      q.terms.push_back(std::move(term));
    }
  }

  void read_crossover(const JsonReader& predict, sim::PublishedQuestion& q) {
    predict.allow_only({"kind", "metric", "groups_per_partition", "variants"});
    q.metric = read_metric(predict.field("metric"));
    const JsonReader sweep = predict.field("groups_per_partition");
    sweep.expect_array("the groups per partition to sweep, ascending");
    if (sweep.size() < 2) sweep.fail("expected at least two sweep points");
    for (std::size_t i = 0; i < sweep.size(); ++i) {
      const JsonReader point = sweep.element(i);
      const double g = point.number();
      if (!(g >= 1.0) || (!q.groups_per_partition.empty() && g <= q.groups_per_partition.back())) {
        point.fail("expected a number >= 1, larger than the one before");
      }
      q.groups_per_partition.push_back(g);
    }
    const JsonReader variants = predict.field("variants");
    variants.expect_array("the two variants {\"label\", \"run\"}");
    if (variants.size() != 2) variants.fail("expected exactly two variants");
    for (std::size_t i = 0; i < 2; ++i) {
      const JsonReader v = variants.element(i);
      v.expect_object("a variant {\"label\", \"run\"}");
      v.allow_only({"label", "run"});
      sim::PublishedVariant variant;
      const JsonReader label = v.field("label");
      variant.label = label.string(true);
      if (i == 1 && variant.label == q.variants[0].label)
        label.fail("expected a label different from the first variant's");
      variant.run = read_run(v.field("run"), true);
      q.variants.push_back(std::move(variant));
    }
  }

  // Adaptive engine runs have one metric, queries_per_s, which no workload has.
  static void check_metric_fits(const JsonReader& run, const sim::PublishedRun& r, sim::PublishedMetric metric) {
    const bool adaptive_metric = metric == sim::PublishedMetric::kQueriesPerS;
    if (r.adaptive && !adaptive_metric) run.fail("expected the metric queries_per_s for an adaptive engine run (a scenario)");
    if (!r.adaptive && adaptive_metric) run.fail("expected a scenario: queries_per_s is the metric of adaptive engine runs");
  }

  int topology_index(const JsonReader& field) {
    const std::string name = field.string(true);
    const auto found = std::find(data_->topology_names.begin(), data_->topology_names.end(), name);
    if (found != data_->topology_names.end())
      return static_cast<int>(found - data_->topology_names.begin());
    try {
      data_->topologies.push_back(model::find_topology(name));
    } catch (const model::InputError&) {
      throw;  // the topology file itself is bad: its own error names it
    } catch (const std::exception& ex) {
      field.fail(ex.what());
    }
    data_->topology_names.push_back(name);
    return static_cast<int>(data_->topologies.size() - 1);
  }

  // A run in the CLI's vocabulary: the option names of `predict` without the dashes. `swept`: the
  // crossover sets the groups, so the run must be a partitioned aggregation without them.
  sim::PublishedRun read_run(const JsonReader& r, bool swept) {
    r.expect_object(
        "a run {\"topology\", \"workload\", ...} (predict's options without the dashes)");
    if (r.has("scenario")) {  // an adaptive engine run (published_adaptive_io.hpp)
      if (swept) r.fail("expected a workload: the crossover sweeps a partitioned aggregation, not a scenario");
      std::vector<std::string_view> allowed{"topology"};
      for (const char* key : kPublishedAdaptiveRunFields) allowed.emplace_back(key);
      for (const auto& [key, v] : r.json().items()) {
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
          r.field(key.c_str()).fail("unknown field: an adaptive run has topology, scenario, placer, stealing, seed, duration, parts, table-bytes, selectivity");
      }
      sim::PublishedRun run;
      run.topology = topology_index(r.field("topology"));
      run.adaptive = read_published_adaptive_run(r, data_->topologies[static_cast<std::size_t>(run.topology)]);
      run.key = "adaptive " + r.json().dump();  // keys sorted: the same run written twice has one key
      return run;
    }
    r.allow_only({"topology", "workload", "algorithm", "sync", "threads", "placement", "bytes",
                  "element-bytes", "cycles-per-element", "state-bytes", "memory-policy", "strategy",
                  "join-algorithm", "allocation", "sort-merge-phases", "records", "build-records", "tuple-bytes", "groups",
                  "groups-per-partition", "keys", "chunks", "threads-per-chunk", "selectivity"});
    sim::PublishedRun run;
    run.topology = topology_index(r.field("topology"));
    const model::Topology& t = data_->topologies[static_cast<std::size_t>(run.topology)];
    WorkloadOptions o;
    const auto text = [&r](const char* key, std::string& out) {
      if (r.has(key)) out = r.field(key).string(true);
    };
    const auto number = [&r](const char* key, double& out) {
      if (r.has(key)) {
        const JsonReader f = r.field(key);
        out = f.number();
        if (!(out > 0.0)) f.fail("expected a number > 0");
      }
    };
    const auto count = [&r](const char* key, int& out) {
      if (r.has(key)) out = r.field(key).small_integer(1);
    };
    text("workload", o.workload);
    text("algorithm", o.algorithm);
    text("sync", o.sync);
    count("threads", o.threads);
    text("placement", o.placement);
    number("bytes", o.bytes);
    count("element-bytes", o.element_bytes);
    number("cycles-per-element", o.cycles_per_element);
    number("state-bytes", o.state_bytes);
    text("memory-policy", o.memory_policy);
    text("strategy", o.strategy);
    text("join-algorithm", o.join_algorithm);
    text("allocation", o.allocation);
    if (r.has("allocation")) {
      try {
        (void)sim::parse_allocation(o.allocation);
      } catch (const std::invalid_argument&) {
        r.field("allocation").fail(std::string("expected preallocated, per-group or per-bucket, found \"") + o.allocation + "\"");
      }
    }
    text("sort-merge-phases", o.sort_merge_phases);
    number("records", o.records);
    number("build-records", o.build_records);
    count("tuple-bytes", o.tuple_bytes);
    number("groups", o.groups);
    text("keys", o.keys);
    count("chunks", o.chunks);
    count("threads-per-chunk", o.threads_per_chunk);
    number("selectivity", o.selectivity);
    double per_partition = 0.0;
    number("groups-per-partition", per_partition);
    if (per_partition > 0.0 && r.has("groups"))
      r.field("groups").fail("expected either groups or groups-per-partition, not both");
    if (swept && (r.has("groups") || per_partition > 0.0)) {
      r.field(r.has("groups") ? "groups" : "groups-per-partition")
          .fail("expected no groups: the crossover's sweep sets them");
    }
    try {
      run.spec = o.spec(t, o.threads);
    } catch (const std::invalid_argument& ex) {
      r.fail(ex.what());
    }
    if (swept && run.spec.kind != sim::WorkloadKind::kPartitionedAggregation) {
      r.field("workload")
          .fail("expected partitioned-aggregation: the crossover sweeps groups per partition");
    }
    if (per_partition > 0.0) run.spec.data.keys.groups = per_partition * run.spec.threads;
    try {
      (void)sim::build_plan(t, run.spec);  // the planner's checks, with this run's pointer
    } catch (const std::invalid_argument& ex) {
      r.fail(ex.what());
    }
    return run;
  }

  static std::string short_number(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  }

  static std::string figure_text(const sim::PublishedFigure& f) {
    std::string relation;
    switch (f.relation) {
      case sim::PublishedRelation::kAbout:
        relation = "about";
        break;
      case sim::PublishedRelation::kBelow:
        relation = "<";
        break;
      case sim::PublishedRelation::kAtMost:
        relation = "<=";
        break;
      case sim::PublishedRelation::kAbove:
        relation = ">";
        break;
      case sim::PublishedRelation::kAtLeast:
        relation = ">=";
        break;
    }
    // Units with a space describe a ratio (docs); the table shows short units only.
    const bool short_unit = f.unit.find(' ') == std::string::npos;
    return relation + " " + short_number(f.value) + (short_unit ? " " + f.unit : "");
  }

  static std::string tolerance_text(sim::PublishedRelation relation, double r) {
    if (r == 0.0) return "";
    const std::string percent = short_number(100.0 * r) + "%";
    switch (relation) {
      case sim::PublishedRelation::kAbout:
        return " +-" + percent;
      case sim::PublishedRelation::kBelow:
      case sim::PublishedRelation::kAtMost:
        return " +" + percent;
      case sim::PublishedRelation::kAbove:
      case sim::PublishedRelation::kAtLeast:
        return " -" + percent;
    }
    return "";
  }

  PublishedData* data_;
  std::string file_;
  std::set<std::string> ids_;
};

}  // namespace

PublishedData load_published(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    throw std::runtime_error("published-figures folder " + dir.string() +
                             " does not exist (pass --data or set NUMATWIN_PUBLISHED_DIR)");
  }
  PublishedData data;
  for (const auto& item : std::filesystem::directory_iterator(dir)) {
    if (item.is_regular_file() && item.path().extension() == ".json")
      data.files.push_back(item.path());
  }
  std::sort(data.files.begin(), data.files.end());
  if (data.files.empty())
    throw std::runtime_error("no *.json files in the published-figures folder " + dir.string());
  Loader loader(data);
  for (const auto& file : data.files) loader.read_file(file);
  return data;
}

PublishedData parse_published(std::string_view text, const std::filesystem::path& file) {
  PublishedData data;
  data.files.push_back(file);
  Loader loader(data);
  loader.read_text(text, file.string());
  return data;
}

}  // namespace numatwin::cli
