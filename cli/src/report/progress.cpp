#include "report/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <iostream>

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

}  // namespace numatwin::cli
