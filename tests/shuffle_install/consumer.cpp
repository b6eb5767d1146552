// A program outside the project that runs a schedule file with the installed library: each
// piece holds (producer, consumer); every consumer must see each of its pieces once, in its order.
#include <numatwin/shuffle/shuffle.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  namespace ns = numatwin::shuffle;
  if (argc != 2) return 2;
  const ns::ScheduleFile file = ns::read_schedule_file(argv[1]);
  const int n = file.threads;
  ns::Runner runner(std::vector<int>(static_cast<std::size_t>(n), ns::kUnpinned));  // file.cpus: the topology's CPUs
  const ns::NodeBuffers data(runner, 64, [n](int p, int c, std::byte* piece, std::size_t) {
    const std::uint64_t id = static_cast<std::uint64_t>(p) * n + c;
    std::memcpy(piece, &id, sizeof id);
  });
  std::atomic<int> wrong{0};
  for (ns::Sync sync : {ns::Sync::kTight, ns::Sync::kLoose}) {
    std::vector<int> step(static_cast<std::size_t>(n), 0);
    runner.run(file.schedule, data.layout(), sync, [&](int c, const std::byte* piece, std::size_t) {
      std::uint64_t id = 0;
      std::memcpy(&id, piece, sizeof id);
      const int k = step[static_cast<std::size_t>(c)]++;
      if (id != static_cast<std::uint64_t>(file.schedule.steps[static_cast<std::size_t>(k)][static_cast<std::size_t>(c)]) * n + c) ++wrong;
    });
    for (int s : step) wrong += s == n ? 0 : 1;
  }
  std::printf("%s: %d threads, %d pieces read tight and loose, %d wrong\n", argv[1], n, n * n, wrong.load());
  return wrong.load() == 0 ? 0 : 1;
}
