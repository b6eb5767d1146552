// libFuzzer target for the published-figures reader behind `numatwin check published`
// (cli/src/io/published_io.hpp, docs/published-checks.md): for any input text, parse_published
// (one data file's text: its entries, the shipped machines and scenarios its runs name, each run
// planned once) must return the data or throw InputError. Accepted data must be what
// evaluate_published is handed: at least one entry, every run's machine index in range, two
// variants for a crossover, a finite published value > 0 for a product. Anything else is a
// finding. Runs are not simulated (that is `check published` itself, minutes per file).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "numatwin/model/input_error.hpp"
#include "io/published_io.hpp"

namespace {

namespace sim = numatwin::sim;
namespace cli = numatwin::cli;

[[noreturn]] void report_finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "published_data_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void check_run(const sim::PublishedRun& run, const cli::PublishedData& data,
               const std::string& id) {
  if (run.topology < 0 || static_cast<std::size_t>(run.topology) >= data.topologies.size()) {
    report_finding("a run's machine index is out of range", id);
  }
}

void check_entry(const sim::PublishedEntry& e, const cli::PublishedData& data) {
  const sim::PublishedQuestion& q = e.question;
  switch (q.kind) {
    case sim::QuestionKind::kProduct:
      if (q.terms.empty() || !std::isfinite(q.figure.value) || !(q.figure.value > 0.0))
        report_finding("a product without terms or value > 0", e.id);
      for (const sim::PublishedTerm& t : q.terms) {
        if (t.best_of.empty()) check_run(t.run, data, e.id);
        for (const sim::PublishedRun& r : t.best_of) check_run(r, data, e.id);
      }
      break;
    case sim::QuestionKind::kCrossover:
      if (q.variants.size() != 2 || q.groups_per_partition.size() < 2)
        report_finding("a crossover without two variants and two points", e.id);
      for (const sim::PublishedVariant& v : q.variants) check_run(v.run, data, e.id);
      break;
    case sim::QuestionKind::kStealing:
      if (q.stealing_topology < 0 ||
          static_cast<std::size_t>(q.stealing_topology) >= data.topologies.size()) {
        report_finding("a stealing question's machine index is out of range", e.id);
      }
      break;
    case sim::QuestionKind::kCannotSpeak:
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cli::PublishedData published;
  try {
    published = cli::parse_published(text, "<fuzz-input>");
  } catch (const numatwin::model::InputError&) {
    return 0;
  } catch (const std::exception& e) {
    report_finding("parse_published threw something other than InputError", e.what());
  }
  if (published.entries.empty()) report_finding("accepted data without entries", "");
  if (published.topologies.size() != published.topology_names.size())
    report_finding("machines and their names differ in number", "");
  for (const sim::PublishedEntry& e : published.entries) check_entry(e, published);
  return 0;
}
