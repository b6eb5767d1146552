#include "numatwin/validate/kernels/kernel_support.hpp"

#include <chrono>

namespace numatwin::validate {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::pair<std::size_t, std::size_t> worker_chunk(std::size_t elements, int worker, int workers) {
  const auto w = static_cast<std::size_t>(worker);
  const auto n = static_cast<std::size_t>(workers);
  return {elements * w / n, elements * (w + 1) / n};
}

}  // namespace numatwin::validate
