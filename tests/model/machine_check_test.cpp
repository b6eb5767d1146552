// The leave-one-out check over the shipped corpus (topologies/corpus) and the corpus reader's
// errors. Leaving one out is real: a machine's own measurements never reach its predictions,
// while they do reach every other machine's fitted rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "numatwin/model/corpus_json.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/machine_check.hpp"
#include "numatwin/model/spec_rule_fit.hpp"

namespace numatwin::model {
namespace {

std::vector<MeasuredMachine> corpus() {
  return load_corpus(std::filesystem::path(NUMATWIN_SOURCE_DIR) / "topologies" / "corpus");
}

std::size_t index_of(const std::vector<MeasuredMachine>& machines, const std::string& id) {
  const auto it = std::find_if(machines.begin(), machines.end(), [&](const auto& m) { return m.id == id; });
  EXPECT_NE(it, machines.end()) << id;
  return static_cast<std::size_t>(it - machines.begin());
}

// Every measured figure of `m` off by a factor: latencies longer, bandwidths lower.
void disturb(MeasuredMachine* m) {
  for (auto& f : m->idle_latency_ns) f.value *= 1.5;
  for (auto& f : m->bandwidth_gbps) f.value *= 0.5;
  for (auto& p : m->peak_injection) p.value_gbps *= 0.7;
  for (auto& c : m->loaded_latency) {
    for (auto& p : c.points) p.latency_ns *= 2.0;
  }
}

TEST(MachineCheckTest, ALeftOutMachinesMeasurementsDoNotReachItsOwnPredictions) {
  std::vector<MeasuredMachine> machines = corpus();
  const std::size_t own = index_of(machines, "haswell-e5-2680v3-2s");
  const std::size_t other = index_of(machines, "haswell-e5-2699v3-2s");
  const std::vector<MachineCheck> before = check_leave_one_out(machines, default_spec_rules());
  const MeasuredMachine original = machines[own];
  disturb(&machines[own]);
  const std::vector<MachineCheck> after = check_leave_one_out(machines, default_spec_rules());

  ASSERT_EQ(before[own].checks.size(), after[own].checks.size());
  ASSERT_FALSE(before[own].checks.empty());
  bool measured_changed = false;
  for (std::size_t i = 0; i < before[own].checks.size(); ++i) {
    const FigureCheck& b = before[own].checks[i];
    const FigureCheck& a = after[own].checks[i];
    EXPECT_EQ(b.predicted, a.predicted) << b.what;
    EXPECT_EQ(b.low, a.low) << b.what;
    EXPECT_EQ(b.high, a.high) << b.what;
    measured_changed = measured_changed || b.measured != a.measured;
  }
  EXPECT_TRUE(measured_changed);

  // The other Haswell is fitted on the disturbed machine: its rules and predictions move.
  std::vector<const MeasuredMachine*> others_before;
  std::vector<const MeasuredMachine*> others_after;
  for (std::size_t j = 0; j < machines.size(); ++j) {
    if (j == other) continue;
    others_before.push_back(j == own ? &original : &machines[j]);
    others_after.push_back(&machines[j]);
  }
  const SpecRules rules_before = fit_spec_rules(others_before, default_spec_rules());
  const SpecRules rules_after = fit_spec_rules(others_after, default_spec_rules());
  EXPECT_NE(rules_before.generations.at("haswell-ep").domain_latency_ns->value,
            rules_after.generations.at("haswell-ep").domain_latency_ns->value);
  EXPECT_NE(rules_before.dram_read_efficiency.at(SpecMemoryKind::kDdr4).value,
            rules_after.dram_read_efficiency.at(SpecMemoryKind::kDdr4).value);
  bool prediction_moved = false;
  for (std::size_t i = 0; i < before[other].checks.size(); ++i) {
    prediction_moved = prediction_moved || before[other].checks[i].predicted != after[other].checks[i].predicted;
  }
  EXPECT_TRUE(prediction_moved);
}

TEST(MachineCheckTest, EveryMeasuredFigureIsCheckedOrListedWithAReason) {
  const std::vector<MeasuredMachine> machines = corpus();
  const std::vector<MachineCheck> results = check_leave_one_out(machines, default_spec_rules());
  ASSERT_EQ(results.size(), machines.size());
  for (std::size_t i = 0; i < machines.size(); ++i) {
    const MeasuredMachine& m = machines[i];
    EXPECT_EQ(results[i].id, m.id);
    std::size_t measured = m.idle_latency_ns.size() + m.bandwidth_gbps.size() + m.peak_injection.size();
    for (const auto& c : m.loaded_latency) measured += c.points.size();
    std::size_t unpredicted = 0;
    for (const auto& u : results[i].unpredicted) {
      EXPECT_FALSE(u.reason.empty()) << m.id << " " << u.what;
      if (u.figure_class != FigureClass::kCoreToCore && u.pointer.rfind("/measurements/", 0) == 0 &&
          std::find_if(m.unpredicted.begin(), m.unpredicted.end(), [&](const auto& x) { return x.pointer == u.pointer; }) ==
              m.unpredicted.end()) {
        ++unpredicted;
      }
    }
    EXPECT_EQ(results[i].checks.size() + unpredicted, measured) << m.id;
    for (const FigureCheck& f : results[i].checks) {
      EXPECT_LE(f.low, f.predicted) << m.id << " " << f.what;
      EXPECT_GE(f.high, f.predicted) << m.id << " " << f.what;
      EXPECT_GT(f.measured, 0.0);
    }
    if (m.spec) {
      EXPECT_FALSE(results[i].checks.empty()) << m.id << " has a spec sheet but nothing was predicted";
    }
  }
}

TEST(MachineCheckTest, SummaryIsMedianWorstAndShareInside) {
  const FigureCheck a{FigureClass::kBandwidth, "a", "", 100, 110, 90, 120};  // +10 %, inside
  const FigureCheck b{FigureClass::kBandwidth, "b", "", 100, 80, 70, 90};    // -20 %, outside
  const FigureCheck c{FigureClass::kBandwidth, "c", "", 50, 55, 50, 60};     // +10 %, inside
  const ErrorSummary s = summarise({&a, &b, &c});
  EXPECT_EQ(s.count, 3);
  EXPECT_NEAR(s.median_abs_error_pct, 10.0, 1e-9);
  EXPECT_NEAR(s.worst_abs_error_pct, 20.0, 1e-9);
  EXPECT_NEAR(s.inside_share, 2.0 / 3.0, 1e-12);
}

TEST(CorpusJsonTest, BadInputIsOneErrorWithFileAndPointer) {
  const auto error_of = [](const std::string& text) {
    try {
      parse_corpus_machine(text, "m.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // A number too large for a double threw nlohmann's out_of_range, not an InputError (the same
  // bug fuzz/flows_file_fuzzer found in the flows reader; issue 39 item 10).
  EXPECT_EQ(error_of(R"json({"id": "x", "measurements": [{"figure": "idle_latency_ns", "value": 8e889}]})json").rfind("m.json: expected JSON (", 0), 0U);
  EXPECT_EQ(error_of(R"json({"id": "x", "measurements": [{"figure": "power_w", "value": 3}]})json"),
            "m.json: /measurements/0/figure: expected idle_latency_ns, bandwidth_gbps, peak_injection_gbps, "
            "loaded_latency or c2c_latency_ns, got \"power_w\"");
  EXPECT_NE(error_of(R"json({"id": "x", "measurements": [{"figure": "peak_injection_gbps", "mix": "4:1", "value": 3}]})json")
                .find("m.json: /measurements/0/mix: expected an mlc mix"),
            std::string::npos);
  EXPECT_NE(error_of(R"json({"id": "x", "measurements": [{"figure": "loaded_latency", "mix": "read-only",
                         "columns": ["inject_delay_ns", "latency_ns", "bandwidth_MBps"], "points": [[0, 100]]}]})json")
                .find("m.json: /measurements/0/points/0: expected 3 numbers"),
            std::string::npos);
  EXPECT_NE(error_of(R"json({"measurements": []})json").find("m.json: /id:"), std::string::npos);
}

TEST(CorpusJsonTest, MessMixesAreWriteSharesAndScopedToOneSocket) {
  const MeasuredMachine m = parse_corpus_machine(
      R"json({"id": "x", "measurements": [
           {"figure": "peak_injection_gbps", "mix": "50% reads (Mess, ~1:1)", "value": 80, "tool": "Mess benchmark 2.0"},
           {"figure": "peak_injection_gbps", "mix": "2:1 Reads-Writes", "value": 90, "tool": "mlc v3.5"},
           {"figure": "c2c_latency_ns", "kind": "Local Socket L2->L2 HIT", "value": 40}]})json",
      "m.json");
  ASSERT_EQ(m.peak_injection.size(), 2u);
  EXPECT_NEAR(m.peak_injection[0].write_fraction, 0.5, 1e-12);
  EXPECT_EQ(m.peak_injection[0].scope, FigureScope::kOneSocket);
  EXPECT_NEAR(m.peak_injection[1].write_fraction, 1.0 / 3.0, 1e-12);
  EXPECT_EQ(m.peak_injection[1].scope, FigureScope::kWholeMachine);
  ASSERT_EQ(m.unpredicted.size(), 1u);
  EXPECT_EQ(m.unpredicted[0].figure_class, FigureClass::kCoreToCore);
  EXPECT_EQ(m.unpredicted[0].pointer, "/measurements/2");
}

}  // namespace
}  // namespace numatwin::model
