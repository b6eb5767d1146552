#include "numatwin/sim/search/uneven_pieces.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {

double piece_relative_sd(double tuples_per_piece, int threads) {
  if (!(tuples_per_piece > 0.0) || threads < 1) {
    throw std::invalid_argument("uneven pieces need more than 0 tuples per piece and at least one thread");
  }
  return std::sqrt((1.0 - 1.0 / threads) / tuples_per_piece);
}

Plan with_uneven_pieces(const Plan& plan, double relative_sd, std::uint64_t seed) {
  Plan out = plan;
  std::mt19937_64 random(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  for (ThreadPlan& thread : out.threads) {
    for (Op& op : thread.ops) {
      auto* transfer = std::get_if<Transfer>(&op);
      if (transfer == nullptr || transfer->phase != Phase::kReadInput) continue;
      transfer->bytes *= std::max(0.0, 1.0 + relative_sd * z(random));
    }
  }
  return out;
}

double UnevenPieces::mean_s() const {
  return time_s.empty() ? 0.0 : std::accumulate(time_s.begin(), time_s.end(), 0.0) / static_cast<double>(time_s.size());
}
double UnevenPieces::min_s() const { return time_s.empty() ? 0.0 : *std::min_element(time_s.begin(), time_s.end()); }
double UnevenPieces::max_s() const { return time_s.empty() ? 0.0 : *std::max_element(time_s.begin(), time_s.end()); }

UnevenPieces uneven_pieces(const model::Topology& topology, const WorkloadSpec& spec, int draws, const ParallelFor& parallel) {
  if (!is_shuffle_family(spec.kind)) {
    throw std::invalid_argument("uneven pieces are a shuffle's (shuffle, migration, migration-copy), not " +
                                workload_kind_name(spec.kind) + "'s");
  }
  if (draws < 1) throw std::invalid_argument("uneven pieces need at least one draw");
  const Plan plan = build_plan(topology, spec);
  UnevenPieces out;
  const double elements = spec.total_bytes / spec.element_bytes;
  out.tuples_per_piece = elements / (static_cast<double>(spec.threads) * spec.threads);
  out.relative_sd = piece_relative_sd(out.tuples_per_piece, spec.threads);
  const SimulationOptions options{.record_timeline = false, .time_only = true};
  out.time_s.assign(static_cast<std::size_t>(draws), 0.0);
  parallel(out.time_s.size(), [&](std::size_t d) {
    out.time_s[d] = Simulation(topology).run(with_uneven_pieces(plan, out.relative_sd, d + 1), options).time_s;
  });
  return out;
}

}  // namespace numatwin::sim
