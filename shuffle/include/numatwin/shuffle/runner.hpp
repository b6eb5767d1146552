// Runs a shuffle schedule for real (schedule.hpp): one thread per schedule thread, pinned to
// its CPU, and for every step the consumer callback on the piece the schedule names.
//
//   tight  every thread does step k, then all meet at a barrier before step k + 1;
//   loose  every thread follows its own order (its column of the schedule) without waiting.
//
// The threads live as long as the Runner, so pinning, first touch (on_each_thread) and the
// runs happen on the same threads. Each run re-pins every thread to its CPU before it starts
// (a consumer may move its thread, e.g. to migrate), then meets at a barrier; its timing counts
// from the moment the last thread arrived there (steady clock, read by the barrier's completion
// step before any thread leaves), and a tight step ends when its barrier completes. A consumer that throws is not called again in that run; its
// thread still reaches every barrier, and run() rethrows the first exception when all are done.
// Pieces stay where the caller put them: node_buffers.hpp places them on their producers' nodes.
// One call at a time: run() and on_each_thread() block until done and must not overlap.
//
// This header is C++17 and needs nothing but the standard library.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "numatwin/shuffle/schedule.hpp"

namespace numatwin::shuffle {

inline constexpr int kUnpinned = -1;

enum class Sync { kTight, kLoose };

// Where the pieces are. Equal pieces: piece c of producer p starts at buffers[p] + c * stride
// and is piece_bytes long (stride >= piece_bytes). Unequal pieces (e.g. key partitions): when
// `offsets` is not empty, offsets[p] holds n + 1 ascending byte offsets into buffers[p] and
// piece c is [offsets[p][c], offsets[p][c + 1]); piece_bytes and stride are then not used.
struct PieceLayout {
  std::vector<const std::byte*> buffers;
  std::size_t piece_bytes = 0;
  std::size_t stride = 0;
  std::vector<std::vector<std::size_t>> offsets;

  [[nodiscard]] const std::byte* piece(int producer, int consumer) const {
    const auto p = static_cast<std::size_t>(producer);
    const auto c = static_cast<std::size_t>(consumer);
    return buffers[p] + (offsets.empty() ? c * stride : offsets[p][c]);
  }
  [[nodiscard]] std::size_t bytes(int producer, int consumer) const {
    const auto p = static_cast<std::size_t>(producer);
    const auto c = static_cast<std::size_t>(consumer);
    return offsets.empty() ? piece_bytes : offsets[p][c + 1] - offsets[p][c];
  }
};

// Called on consumer c's thread with the piece it reads, step after step in its order.
using Consumer = std::function<void(int consumer, const std::byte* piece, std::size_t bytes)>;

struct RunTiming {
  double seconds = 0.0;                   // from the starting barrier to the last thread's end
  std::vector<double> step_end_seconds;   // tight: the end of every step's barrier (else empty)
  std::vector<double> thread_end_seconds; // each thread's end
};

class Runner {
 public:
  // cpus[t]: the OS CPU of thread t, or kUnpinned. Throws std::invalid_argument for no threads
  // and std::runtime_error naming the thread and CPU when one cannot be pinned.
  explicit Runner(std::vector<int> cpus);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  [[nodiscard]] int threads() const;
  [[nodiscard]] const std::vector<int>& cpus() const;

  // Runs task(t) on every thread t and waits; rethrows the first exception (after all ended).
  void on_each_thread(const std::function<void(int thread)>& task);

  // Executes the schedule. Throws std::invalid_argument before running when the schedule does
  // not fit threads() (check_schedule) or the layout has another number of buffers, a null
  // buffer, a stride below the piece size, or offsets that are not n lists of n + 1 ascending
  // offsets.
  RunTiming run(const Schedule& schedule, const PieceLayout& pieces, Sync sync, const Consumer& consume);

 private:
  struct Pool;
  std::unique_ptr<Pool> pool_;
};

// Pins the calling thread to `cpu` (kUnpinned: every CPU of the process); std::runtime_error
// naming the CPU and the reason when the kernel refuses.
void pin_current_thread(int cpu);

}  // namespace numatwin::shuffle
