#include "numatwin/validate/measure/core_to_core.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "numatwin/validate/host/thread_team.hpp"

namespace numatwin::validate {
namespace {

struct alignas(64) Line {
  std::atomic<std::uint64_t> value{0};
};

}  // namespace

double core_to_core_latency_ns(int cpu_a, int cpu_b, const CoreToCoreOptions& options) {
  if (cpu_a == cpu_b) throw std::invalid_argument("core-to-core latency needs two different CPUs");
  if (options.round_trips < 1 || options.trials < 1) throw std::invalid_argument("core-to-core latency: round trips and trials must be >= 1");
  ThreadTeam team({cpu_a, cpu_b});
  std::vector<double> one_way_ns;
  for (int trial = 0; trial < options.trials; ++trial) {
    Line line;
    double seconds = 0.0;
    const auto rounds = static_cast<std::uint64_t>(options.round_trips);
    team.run([&](int w) {
      team.barrier();
      const auto start = std::chrono::steady_clock::now();
      // Worker 0 turns even values odd, worker 1 odd values even.
      for (std::uint64_t i = 0; i < rounds; ++i) {
        const std::uint64_t mine = 2 * i + static_cast<std::uint64_t>(w);
        while (line.value.load(std::memory_order_acquire) != mine) {
        }
        line.value.store(mine + 1, std::memory_order_release);
      }
      if (w == 0) {
        while (line.value.load(std::memory_order_acquire) != 2 * rounds) {
        }
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    });
    one_way_ns.push_back(seconds * 1e9 / (2.0 * static_cast<double>(rounds)));
  }
  return *std::min_element(one_way_ns.begin(), one_way_ns.end());
}

}  // namespace numatwin::validate
