// A measured machine of the corpus (topologies/corpus/README.md): its spec sheet in our format
// and the machine-level figures measured on it, grouped by the figure classes `check machines`
// predicts. The reader is corpus_json.hpp; the rule fitter (spec_rule_fit.hpp) and the
// leave-one-out check (machine_check.hpp) take these.
//
// Node numbers are the source's (Linux / mlc NUMA node ids). A derived topology numbers its
// nodes the same way (socket by socket, s0n0 = 0, s0n1 = 1, ...), so node k is the derived
// machine's k-th node with cores.
//
// Write fraction w: the share of the bytes that are writes (mlc "3:1 Reads-Writes": 1/4, "2:1":
// 1/3, "1:1": 1/2, "Stream-triad like": 1/3; Mess "NN% reads": 1 - NN/100).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/spec_sheet.hpp"

namespace numatwin::model {

enum class FigureClass { kIdleLatency, kBandwidth, kPeakInjection, kLoadedLatency, kCoreToCore };

// "idle_latency_ns", "bandwidth_gbps", "peak_injection_gbps", "loaded_latency", "c2c_latency_ns"
// (the corpus's names).
std::string figure_class_name(FigureClass c);

// Whose traffic a bandwidth figure counts: every node of the machine on its own memory (mlc's
// peak injection and loaded latency) or one socket's nodes on theirs (Mess).
enum class FigureScope { kWholeMachine, kOneSocket };

// One entry of an idle latency or bandwidth matrix.
struct NodePairFigure {
  int from_node = 0;
  int to_node = 0;
  double value = 0.0;   // ns or GB/s
  std::string pointer;  // in the corpus file, e.g. "/measurements/3"
};

struct PeakInjectionFigure {
  std::string mix;
  double write_fraction = 0.0;
  FigureScope scope = FigureScope::kWholeMachine;
  double value_gbps = 0.0;
  std::string pointer;
};

struct LoadedLatencyPoint2 {
  double bandwidth_gbps = 0.0;
  double latency_ns = 0.0;
};

// A bandwidth-latency curve: its points as measured (any order).
struct LoadedLatencyCurve {
  std::string mix;
  double write_fraction = 0.0;
  FigureScope scope = FigureScope::kWholeMachine;
  std::vector<LoadedLatencyPoint2> points;
  std::string pointer;
};

// A measured figure the model cannot predict, with the reason (listed, never dropped).
struct UnpredictedFigure {
  FigureClass figure_class = FigureClass::kCoreToCore;
  std::string pointer;
  std::string what;
  int count = 1;  // figures it stands for (a curve's points)
  std::string reason;
};

struct MeasuredMachine {
  std::string id;
  std::string file;                // the corpus file
  std::optional<SpecSheet> spec;   // nullopt: no spec sheet in our format (no_spec_reason says why)
  std::string spec_file;
  std::string no_spec_reason;
  std::vector<NodePairFigure> idle_latency_ns;
  std::vector<NodePairFigure> bandwidth_gbps;
  std::vector<PeakInjectionFigure> peak_injection;
  std::vector<LoadedLatencyCurve> loaded_latency;
  std::vector<UnpredictedFigure> unpredicted;
};

}  // namespace numatwin::model
