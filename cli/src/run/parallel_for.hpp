// The CLI's threads for independent simulations (sim/ has none): sim::ParallelFor over
// std::thread, one per hardware thread (at most n), each taking the next index in turn.
#pragma once

#include <cstddef>
#include <functional>

namespace numatwin::cli {

// Runs body(i) for i in [0, n) on up to std::thread::hardware_concurrency() threads; the first
// exception thrown by a body is rethrown here after every thread has stopped.
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& body);

}  // namespace numatwin::cli
