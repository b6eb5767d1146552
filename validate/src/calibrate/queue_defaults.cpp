#include "numatwin/validate/calibrate/queue_defaults.hpp"

#include <stdexcept>

namespace numatwin::validate {

std::optional<double> saturation_queue_ns(int cores, int miss_buffers_per_core, int line_bytes,
                                          double saturated_bandwidth_gbps, double idle_latency_ns) {
  if (cores < 1 || miss_buffers_per_core < 1 || line_bytes < 1 || !(saturated_bandwidth_gbps > 0.0) ||
      !(idle_latency_ns > 0.0)) {
    throw std::invalid_argument("saturation_queue_ns: every input must be > 0");
  }
  // Bytes in flight over bytes per ns (GB/s = bytes/ns) is the latency in ns.
  const double bytes_in_flight = static_cast<double>(cores) * miss_buffers_per_core * line_bytes;
  const double idle_bandwidth_gbps = bytes_in_flight / idle_latency_ns;
  if (idle_bandwidth_gbps <= 1.05 * saturated_bandwidth_gbps) return std::nullopt;
  return bytes_in_flight / saturated_bandwidth_gbps - idle_latency_ns;
}

}  // namespace numatwin::validate
