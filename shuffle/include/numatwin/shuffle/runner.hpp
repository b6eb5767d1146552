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
// One call at a time: run(), run_migration() and on_each_thread() block until done and must not
// overlap.
//
// Migration (run_migration, schedule.hpp's Workload): the same steps, but before reading its
// piece of step k consumer c goes where producer p = steps[k][c] is and reads p's piece there,
// locally. Where: Migration::nodes says which producers share a node. A consumer moves (re-pins)
// when p is on another node than the one it is on, to the least busy CPU of p's node (fewest
// consumers on it, the first listed on ties; the CPUs are Migration::node_cpus, by default the
// producers' CPUs on that node in producer order), and stays where it is otherwise: the
// simulator's binding (sim/plan/plan.hpp) and validate's migration kernel. Without nodes every
// producer is its own node, so the consumer moves to p's CPU at every step; in a Latin square
// step every producer is read once, so no CPU then hosts two consumers in a tight step. The
// consumer may carry a state (Migration::state_bytes, reached with state(c) from its callback):
// plain migration keeps it in its home slot (its own producer's node) and reads it from there;
// migration & copy copies it to its slot on p's node before each move (validate's migration &
// copy kernel and the simulator). After the timed part every thread re-pins to its own CPU.
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
  std::vector<int> moves;                 // migration: each consumer's moves to another node (else empty)
  std::vector<int> copies;                // migration & copy: each consumer's state copies (else empty)
};

// What a migrating consumer carries and where it goes (run_migration, above). Consumer c's slot
// on producer p's node is states[p] + c * state_stride (state_bytes long): plain migration uses
// only its home slot (p = c), migration & copy the slot of the producer it moved to last. No
// state: state_bytes 0 and states empty.
struct Migration {
  bool copy = false;
  std::size_t state_bytes = 0;
  std::size_t state_stride = 0;
  std::vector<std::byte*> states;
  // nodes[p]: the node of producer p, 0 .. (a label: NodeBuffers::node, or the program's own);
  // empty: every producer is a node of its own.
  std::vector<int> nodes;
  // node_cpus[m]: the OS CPUs a consumer moving to node m may take, in order of preference;
  // empty: the CPUs of the producers on m. When given, one non-empty list per node label.
  std::vector<std::vector<int>> node_cpus;
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

  // Executes the schedule as a migration (above). Throws std::invalid_argument as run() does,
  // and when `migration` has state but not one slot buffer per thread, a stride below
  // state_bytes, nodes of another length or below 0, or a node with producers but no CPU to move
  // to (node_cpus' list empty; by default, all its producers unpinned). An unpinned thread
  // starts unpinned and is pinned by its first move.
  RunTiming run_migration(const Schedule& schedule, const PieceLayout& pieces, Sync sync, const Migration& migration,
                          const Consumer& consume);

  // During run_migration, on consumer c's thread: where its state is now (nullptr without state).
  [[nodiscard]] std::byte* state(int consumer) const;

 private:
  struct Pool;
  void check_pieces(const Schedule& schedule, const PieceLayout& pieces, const Consumer& consume) const;
  RunTiming run_steps(const Schedule& schedule, const PieceLayout& pieces, Sync sync, const Migration* migration,
                      const Consumer& consume);
  std::unique_ptr<Pool> pool_;
};

// Pins the calling thread to `cpu` (kUnpinned: every CPU of the process); std::runtime_error
// naming the CPU and the reason when the kernel refuses.
void pin_current_thread(int cpu);

}  // namespace numatwin::shuffle
