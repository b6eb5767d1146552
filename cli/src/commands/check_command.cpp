#include "commands/check_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "io/published_io.hpp"
#include "report/text_table.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

std::filesystem::path default_published_dir() {
  if (const char* dir = std::getenv("NUMATWIN_PUBLISHED_DIR"); dir != nullptr && *dir != '\0')
    return dir;
  return NUMATWIN_PUBLISHED_DIR;
}

std::string verdict_text(const sim::PublishedEntry& e, const sim::PublishedOutcome& o) {
  if (o.verdict == sim::PublishedVerdict::kMiss) return e.must_hold ? "MISS (must hold)" : "miss";
  return sim::published_verdict_name(o.verdict);
}

const char* kind_name(sim::QuestionKind kind) {
  switch (kind) {
    case sim::QuestionKind::kProduct:
      return "product";
    case sim::QuestionKind::kCrossover:
      return "crossover";
    case sim::QuestionKind::kStealing:
      return "stealing-threshold";
    case sim::QuestionKind::kCannotSpeak:
      return "cannot-speak";
  }
  return "?";
}

const char* relation_name(sim::PublishedRelation relation) {
  switch (relation) {
    case sim::PublishedRelation::kAbout:
      return "about";
    case sim::PublishedRelation::kBelow:
      return "<";
    case sim::PublishedRelation::kAtMost:
      return "<=";
    case sim::PublishedRelation::kAbove:
      return ">";
    case sim::PublishedRelation::kAtLeast:
      return ">=";
  }
  return "?";
}

struct Counts {
  int pass = 0;
  int miss = 0;
  int cannot_speak = 0;
  std::vector<std::string> must_hold_misses;
};

void run_check(const std::string& data_dir, const std::string& study, bool json) {
  const std::filesystem::path dir =
      data_dir.empty() ? default_published_dir() : std::filesystem::path(data_dir);
  const PublishedData data = load_published(dir);
  std::vector<const sim::PublishedEntry*> selected;
  std::set<std::string> studies;
  for (const sim::PublishedEntry& e : data.entries) {
    studies.insert(e.study);
    if (study.empty() || e.study == study) selected.push_back(&e);
  }
  if (selected.empty()) {
    std::string names;
    for (const std::string& s : studies) names += (names.empty() ? "" : ", ") + s;
    throw std::invalid_argument("--study \"" + study + "\": no such study; the data has: " + names);
  }

  Counts counts;
  std::vector<sim::PublishedOutcome> outcomes;
  sim::PublishedRunCache cache;  // entries that share a run (the same scenario and options) run it once
  for (const sim::PublishedEntry* e : selected) {
    outcomes.push_back(sim::evaluate_published(data.topologies, *e, &cache));
    switch (outcomes.back().verdict) {
      case sim::PublishedVerdict::kPass:
        ++counts.pass;
        break;
      case sim::PublishedVerdict::kMiss:
        ++counts.miss;
        if (e->must_hold) counts.must_hold_misses.push_back(e->id);
        break;
      case sim::PublishedVerdict::kCannotSpeak:
        ++counts.cannot_speak;
        break;
    }
  }

  if (json) {
    Json rows = Json::array();
    for (std::size_t i = 0; i < selected.size(); ++i) {
      const sim::PublishedEntry& e = *selected[i];
      const sim::PublishedOutcome& o = outcomes[i];
      Json row{{"id", e.id},
               {"study", e.study},
               {"where", e.where},
               {"source", e.source},
               {"statement", e.statement},
               {"kind", kind_name(e.question.kind)},
               {"published", e.published_text},
               {"predicted", o.predicted ? Json(*o.predicted) : Json(nullptr)},
               {"predicted_text", o.predicted_text},
               {"ratio", o.ratio ? Json(*o.ratio) : Json(nullptr)},
               {"verdict", sim::published_verdict_name(o.verdict)},
               {"must_hold", e.must_hold},
               {"detail", o.detail},
               {"note", e.note},
               {"tolerance_rationale", e.tolerance_rationale},
               {"consistency_only", e.consistency_only},
               {"basis", e.basis}};
      if (e.question.kind == sim::QuestionKind::kProduct) {
        row["relation"] = relation_name(e.question.figure.relation);
        row["value"] = e.question.figure.value;
        row["unit"] = e.question.figure.unit;
        row["tolerance_relative"] = e.question.tolerance_relative;
      }
      rows.push_back(row);
    }
    Json out{{"data", dir.string()},
             {"entries", rows},
             {"counts", Json{{"pass", counts.pass},
                             {"miss", counts.miss},
                             {"cannot_speak", counts.cannot_speak},
                             {"must_hold_misses", counts.must_hold_misses}}}};
    std::cout << out.dump(2) << "\n";
  } else {
    TextTable table({"id", "study", "statement", "predicted", "published", "ratio", "verdict"});
    for (std::size_t i = 0; i < selected.size(); ++i) {
      const sim::PublishedEntry& e = *selected[i];
      const sim::PublishedOutcome& o = outcomes[i];
      table.add_row({e.id + (e.consistency_only ? " (c)" : ""), e.study, e.summary,
                     o.predicted_text, e.published_text,
                     o.ratio ? fmt::format("{:.2f}", *o.ratio) : "-", verdict_text(e, o)});
    }
    std::cout << table.render();
    std::cout << fmt::format("\n{} entries: {} pass, {} miss ({} must hold), {} cannot speak\n",
                             selected.size(), counts.pass, counts.miss,
                             counts.must_hold_misses.size(), counts.cannot_speak);
    std::cout << "(c): check of consistency, not independent (the figure is fixed by what the "
                 "machine file was calibrated on)\n";
    const auto list = [&](sim::PublishedVerdict verdict, const char* title) {
      bool any = false;
      for (std::size_t i = 0; i < selected.size(); ++i) {
        if (outcomes[i].verdict != verdict) continue;
        if (!any) std::cout << "\n" << title << "\n";
        any = true;
        const sim::PublishedEntry& e = *selected[i];
        const std::string why =
            verdict == sim::PublishedVerdict::kCannotSpeak ? outcomes[i].detail : e.note;
        std::cout << fmt::format("  {}: {}\n", e.id, why.empty() ? "(no note)" : why);
        if (verdict == sim::PublishedVerdict::kMiss && !outcomes[i].detail.empty()) {
          std::cout << fmt::format("    {}\n", outcomes[i].detail);
        }
      }
    };
    list(sim::PublishedVerdict::kMiss, "Misses:");
    list(sim::PublishedVerdict::kCannotSpeak, "Cannot speak:");
    bool details = false;
    for (std::size_t i = 0; i < selected.size(); ++i) {
      const sim::PublishedEntry& e = *selected[i];
      const sim::PublishedOutcome& o = outcomes[i];
      if (o.verdict != sim::PublishedVerdict::kPass || (o.detail.empty() && e.note.empty()))
        continue;
      if (!details) std::cout << "\nPasses with a note or detail:\n";
      details = true;
      std::cout << fmt::format("  {}: {}\n", e.id, e.note.empty() ? o.detail : e.note);
      if (!e.note.empty() && !o.detail.empty()) std::cout << fmt::format("    {}\n", o.detail);
    }
  }
  if (!counts.must_hold_misses.empty()) {
    std::string ids;
    for (const std::string& id : counts.must_hold_misses) ids += (ids.empty() ? "" : ", ") + id;
    throw std::runtime_error(fmt::format("{} must-hold published figure(s) out of tolerance: {}",
                                         counts.must_hold_misses.size(), ids));
  }
}

}  // namespace

void register_check_command(CLI::App& app) {
  CLI::App* check = app.add_subcommand("check", "Checks of the model against outside figures");
  check->require_subcommand(1);
  auto data = std::make_shared<std::string>();
  auto study = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* published =
      check->add_subcommand("published",
                            "Predict the studies' published algorithm-level figures and "
                            "statements: predicted, published, ratio, verdict");
  published->add_option(
      "--data", *data,
      "Folder of published-figure files (default: the source tree's tests/published)");
  published->add_option("--study", *study,
                        "Only this study's entries (li, memarzia, dominico, durner, psaroudakis)");
  published->add_flag("--json", *json, "Print JSON");
  published->callback([data, study, json] { run_check(*data, *study, *json); });
}

}  // namespace numatwin::cli
