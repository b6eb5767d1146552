// Energy of a run's memory traffic: an estimate next to time, because the thread-placement study
// (Dominico et al., ../docs/algorithms.md §3) reports DRAM energy and finds that packing threads
// raises it.
//
// ── The estimate ────────────────────────────────────────────────────────────────────────────
// For a run of T seconds on M memory nodes whose memory controllers served B_n bytes, of which
// R bytes were a thread's access to another node's memory, and whose links carried L_l bytes:
//     E_dram       = e_dram x sum_n B_n                  (activate, read/write, I/O per byte)
//     E_remote     = e_remote x R                        (the home agent's and the remote
//                                                         request's work beyond a local access)
//     E_link       = e_link x sum_l L_l                  (per byte per link crossed: a two-hop
//                                                         access crosses two links)
//     E_background = P_bg x M x T                        (refresh and standby power of each
//                                                         node's DIMMs while the run lasts)
//     E = E_dram + E_remote + E_link + E_background
// (e in pJ per byte, P_bg in watts per memory node.) B_n is the controller's load as the bandwidth
// model puts it (bandwidth_model.hpp): a written byte counts twice, its ownership read and its
// write-back, both DRAM accesses. The link term counts whatever the links
// carry, coherence probes and responses included. What the estimate leaves out: the cores and
// caches (RAPL's package domain), power states, and any dependence of e_dram on the access
// pattern (row-buffer hits make streams cheaper per byte than random lines).
//
// ── Where the figures come from ─────────────────────────────────────────────────────────────
// A topology file may give them, with a source, under /energy. Without it the defaults below are
// used and every report says so. None is a figure of any shipped machine:
//   e_dram = 160 pJ/B: Horowitz's 640 pJ for a 32-bit DRAM read at 45 nm (ISSCC 2014 keynote
//            "Computing's energy problem"; quoted as 6400 x a 32-bit integer add of 0.1 pJ on
//            Stanford CS149's lecture slides), i.e. 20 pJ/bit; newer DDR4/DDR5 parts are lower;
//   e_remote, e_link, P_bg: uncalibrated order-of-magnitude values chosen here, no source behind
//            them (the ranges beside them say how little they are known).
#pragma once

#include <optional>
#include <string>

namespace numatwin::model {

struct EnergyParameters {
  double dram_pj_per_byte = 160.0;             // default: Horowitz, 45 nm (range 50..400)
  double remote_access_pj_per_byte = 20.0;     // default: uncalibrated (range 0..100)
  double link_pj_per_byte = 50.0;              // default: uncalibrated (range 10..150)
  double dram_background_watts_per_node = 3.0;  // default: uncalibrated (range 1..10)
  std::string source;                          // where a file's figures come from

  bool operator==(const EnergyParameters&) const = default;
};

// What the machine's estimate rests on: the file's figures or the defaults.
struct EnergyBasis {
  EnergyParameters parameters;
  bool defaults = true;
  [[nodiscard]] std::string description() const;
};

EnergyBasis energy_basis(const std::optional<EnergyParameters>& from_file);

}  // namespace numatwin::model
