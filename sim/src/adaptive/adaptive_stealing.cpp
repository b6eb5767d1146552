#include "numatwin/sim/adaptive/adaptive_stealing.hpp"

#include <algorithm>

namespace numatwin::sim {

bool stealing_allowed(StealingMode mode, std::optional<double> class_task_bytes_per_s, double threshold_bytes_per_s) {
  switch (mode) {
    case StealingMode::kAllow: return true;
    case StealingMode::kDeny: return false;
    case StealingMode::kAdaptive: return class_task_bytes_per_s && *class_task_bytes_per_s <= threshold_bytes_per_s;
  }
  return false;
}

double effective_stealing_threshold(double threshold_bytes_per_s, int sockets, int loaded_sockets) {
  if (sockets < 1) return threshold_bytes_per_s;
  return threshold_bytes_per_s * std::min(1.0, 2.0 * loaded_sockets / sockets);
}

}  // namespace numatwin::sim
