// A Topology derived from a spec sheet by the rules of spec_rules.hpp (the maths is there), in
// the sheet's NUMA mode or another (a what-if: "the same part in SNC3"). Every figure the
// derivation sets is listed with its rule, its basis and its range, so that nothing it writes is
// a silent default.
//
// Layout: per socket, the mode's nodes in order (s0n0, s0n1, ...); Intel nodes take whole dies
// when the dies divide over them, else an even share of cores (the first nodes one more: 43/43/42);
// AMD quadrant nodes take whole CCDs the same way. Dies sit in a row (a 2 x 2 grid for 4 dies);
// AMD quadrants are all one step apart. Between the nodes of a socket: a link per pair whose
// latency is the die steps it adds; between sockets: the socket links summed into one link per
// socket pair, node to node with one node per socket, else between per-socket routers that every
// node of the socket reaches. HBM in flat mode: a CPU-less node per socket node; CXL
// expanders and accelerators' memory: CPU-less nodes behind a link from their socket's nodes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/spec_rules.hpp"
#include "numatwin/model/spec_sheet.hpp"
#include "numatwin/model/topology.hpp"

namespace numatwin::model {

// One figure the derivation set, or predicts without writing it into the topology (peak
// bandwidth per read/write mix).
struct DerivedFigure {
  std::string what;     // "s0n0 memory read bandwidth"
  std::string pointer;  // JSON pointer in the derived topology; empty when not part of it
  std::string unit;     // "GB/s", "ns", "lines"
  double value = 0.0;
  double low = 0.0;
  double high = 0.0;
  std::string rule;   // the formula, in words
  std::string basis;  // fitted on ..., transferred from ..., or a publication
  bool transferred = false;
};

struct DerivedMachine {
  Topology topology;
  NumaMode mode;
  std::vector<DerivedFigure> figures;
};

struct DerivationOptions {
  std::optional<NumaMode> mode;         // nullopt: the sheet's
  std::optional<HbmMode> hbm_mode;      // nullopt: the sheet's
  std::string source_name;              // the spec file, for provenance and messages
};

// Throws InputError (file: options.source_name) when the spec cannot be derived in the mode
// asked for (check_spec_sheet's problems), or a generation has a figure no rule can give.
DerivedMachine derive_machine(const SpecSheet& spec, const SpecRules& rules, const DerivationOptions& options);

}  // namespace numatwin::model
