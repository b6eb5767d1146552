// Where a migrating thread goes, decided as the simulator does (sim/plan/plan.hpp, Bind): staying on
// its node keeps its core; moving takes the least busy core of the destination node (fewest
// threads, lowest index on ties). Threads start on the cores the model placed them on. The
// real kernels pin to the first hardware thread of the chosen core (HostMap::node_cpus lists
// those first). Thread-safe: one short critical section per move, never per element.
#pragma once

#include <mutex>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
#include "numatwin/validate/discover/host_map.hpp"

namespace numatwin::validate {

inline constexpr int kStay = -2;  // move(): the thread stays where it is

class MigrationCores {
 public:
  // Throws std::invalid_argument when a node with cores in the map has no usable CPU here.
  MigrationCores(const HostMap& host, const std::vector<sim::PlacedThread>& threads);

  // Every thread back on the core it started on (call before each repetition, single-threaded).
  void reset();
  // Moves `thread` to `node`: the OS CPU to pin to, or kStay when it is already on that node.
  int move(int thread, model::NodeIndex node);
  [[nodiscard]] model::NodeIndex node_of(int thread) const { return where_[static_cast<std::size_t>(thread)].node; }
  // Whether `node` has a CPU a thread can move to.
  [[nodiscard]] bool can_host(model::NodeIndex node) const;

 private:
  struct Place {
    model::NodeIndex node = 0;
    int core = 0;  // local core index on the node
  };
  const HostMap& host_;
  std::vector<Place> start_;
  std::vector<Place> where_;
  std::vector<std::vector<int>> on_core_;  // node -> local core -> threads
  std::mutex mutex_;
};

}  // namespace numatwin::validate
