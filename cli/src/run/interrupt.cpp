#include "run/interrupt.hpp"

#include <csignal>

namespace numatwin::cli {
namespace {

std::atomic<bool> interrupt_requested{false};

extern "C" void on_interrupt(int) {
  interrupt_requested.store(true);
  std::signal(SIGINT, SIG_DFL);
}

}  // namespace

InterruptScope::InterruptScope() {
  interrupt_requested.store(false);
  previous_ = std::signal(SIGINT, on_interrupt);
}

InterruptScope::~InterruptScope() { std::signal(SIGINT, previous_); }

const std::atomic<bool>* InterruptScope::flag() const { return &interrupt_requested; }

bool InterruptScope::requested() const { return interrupt_requested.load(); }

}  // namespace numatwin::cli
