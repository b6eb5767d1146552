#include "numatwin/sim/adaptive_stealing.hpp"

namespace numatwin::sim {

bool stealing_allowed(StealingMode mode, std::optional<double> class_task_bytes_per_s, double threshold_bytes_per_s) {
  switch (mode) {
    case StealingMode::kAllow: return true;
    case StealingMode::kDeny: return false;
    case StealingMode::kAdaptive: return class_task_bytes_per_s && *class_task_bytes_per_s <= threshold_bytes_per_s;
  }
  return false;
}

}  // namespace numatwin::sim
