#include "report/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <utility>

namespace numatwin::cli {

ProgressBar::ProgressBar(bool quiet) : tty_(isatty(2) != 0), quiet_(quiet) {}

void ProgressBar::update(int done, int total, double eta_s, const std::string& label) const {
  if (quiet_) return;
  const int width = 30;
  const int filled = total == 0 ? width : width * done / total;
  std::cerr << fmt::format("{}[{}{}] {:3d}/{} ETA {:4.0f} s  {}{}", tty_ ? "\r" : "", std::string(static_cast<std::size_t>(filled), '#'),
                           std::string(static_cast<std::size_t>(width - filled), '.'), done, total, std::ceil(eta_s), label,
                           tty_ ? "\x1b[K" : "\n")
            << std::flush;
}

void ProgressBar::finish() const {
  if (tty_ && !quiet_) std::cerr << "\n";
}

ElapsedProgress::ElapsedProgress(std::string what, double after_s)
    : what_(std::move(what)), after_s_(after_s), start_(std::chrono::steady_clock::now()), last_(start_) {
  // NUMATWIN_PROGRESS_AFTER_S sets the silent start (0: from the first step; tests use it).
  if (const char* text = std::getenv("NUMATWIN_PROGRESS_AFTER_S"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    if (end != text && *end == '\0' && value >= 0.0) after_s_ = value;
  }
}

void ElapsedProgress::update(int done, int total, const std::string& label) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  if (elapsed_s < after_s_ || done <= 0 || total <= 0) return;
  if (drawn_ && done < total && std::chrono::duration<double>(now - last_).count() < 0.5) return;
  last_ = now;
  drawn_ = true;
  const double eta_s = elapsed_s / done * (total - done);
  bar_.update(done, total, eta_s, what_ + (label.empty() ? "" : ": " + label));
}

ElapsedProgress::~ElapsedProgress() {
  if (drawn_) bar_.finish();
}

}  // namespace numatwin::cli
