// Ctrl-C for long validator commands (measure, run, suite): while an InterruptScope is alive,
// SIGINT sets a flag that the work polls between points; a second Ctrl-C kills the process (the
// handler restores the default action). The flag is the CLI's one piece of static state: a
// signal handler can reach nothing else.
#pragma once

#include <atomic>

namespace numatwin::cli {

class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  [[nodiscard]] const std::atomic<bool>* flag() const;
  [[nodiscard]] bool requested() const;

 private:
  void (*previous_)(int);
};

}  // namespace numatwin::cli
