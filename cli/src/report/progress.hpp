// A one-line progress bar with ETA on standard error: redrawn in place on a terminal, one line
// per update otherwise (logs, CI).
#pragma once

#include <string>

namespace numatwin::cli {

class ProgressBar {
 public:
  explicit ProgressBar(bool quiet = false);
  void update(int done, int total, double eta_s, const std::string& label) const;
  // Ends the line on a terminal.
  void finish() const;

 private:
  bool tty_;
  bool quiet_;
};

}  // namespace numatwin::cli
