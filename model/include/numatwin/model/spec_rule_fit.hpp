// Fitting the spec rules (spec_rules.hpp) on a set of measured machines, as code: what
// spec_rules.cpp works out by hand from a few lab machines, done the same way for any set.
//
// ── The fit ──────────────────────────────────────────────────────────────────────────────────
// Idle latency. The derivation is linear in the latency rules: an entry (i, j) of a machine's
// idle latency matrix is  L_ij = c0 + D_gen + s cS_ij + X_gen cX_ij,  where cS_ij (mean die
// steps) and cX_ij (socket steps) are read off the Deriver itself (derivations of the machine's
// sheet with D, s, X each moved by 1 ns), so the fit always matches what the Deriver builds.
//   s: per machine whose socket-local entries differ in cS, the least-squares slope of L over
//      cS; s = the median over those machines.
//   D: per machine, the mean over its local entries (i = j) of L - c0 - s cS.
//   X: per machine, the mean over its cross-socket entries of (L - c0 - D - s cS) / cX.
// DRAM efficiency, per memory kind: eta = a node's all-thread local read (the bandwidth matrix's
//   diagonal) / the node's channels x MT/s x 8 B; without a matrix, the all-reads peak injection
//   / the scope's theoretical bandwidth.
// Write cost, per memory kind: a mix of write share w peaks at P_w = P_0 / (1 + tau w), so
//   tau = (P_0 / P_w - 1) / w for each measured mix, P_0 the same scope's all-reads peak.
// Socket-link efficiency, per link kind (one node per socket only: with SNC a node's remote
//   read is not link-bound): eta_link = remote read bandwidth / theoretical link bandwidth.
// Lines in flight, per generation (Little's law at saturation): at the read-only loaded-latency
//   curve's highest bandwidth B (over N nodes of n cores each) and its latency L,
//   M = L x (B / N) / (n x 64 B).
// Queue exponent e: on the same curve, with L0 its least loaded latency and u = b / B,
//   (L - L0) / (L_B - L0) = u^e, so e = ln((L - L0) / (L_B - L0)) / ln u over the points with
//   0.2 <= u <= 0.95 and L0 < L < L_B; per machine the median, e = the median over machines.
// Every value: the median of the per-machine values, the range from the smallest to the largest
// per-entry (per-machine) value (so a single machine still has the spread of its own entries).
// A kind or link with no machine gets the median and range of every kind's (said so); a
// generation with none gets nothing and the Deriver transfers from the nearest (spec_rules.hpp).
// Not fitted (no measured machine has them): CCD links, CXL, HBM, PCIe: carried from `base`,
// said so in the basis.
#pragma once

#include <vector>

#include "numatwin/model/measured_machine.hpp"
#include "numatwin/model/spec_rules.hpp"

namespace numatwin::model {

// Machines without a spec sheet are skipped. `base` gives the generations' vendors and release
// order and the rules no machine can fit. Throws InputError when a machine's sheet cannot be
// derived.
SpecRules fit_spec_rules(const std::vector<const MeasuredMachine*>& machines, const SpecRules& base);

}  // namespace numatwin::model
