// A one-line progress bar with ETA on standard error: redrawn in place on a terminal, one line
// per update otherwise (logs, CI).
#pragma once

#include <chrono>
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

// Progress of work that is usually quick (simulations: predict, compare, sweep, schedule): nothing
// until `after_s` have passed (2 s: a quick run stays silent), then the bar with an ETA from the
// rate so far, redrawn at most twice a second (a log gets a line per redraw). Updated from one
// thread only. NUMATWIN_PROGRESS_AFTER_S in the environment sets the silent start (0: at once).
class ElapsedProgress {
 public:
  explicit ElapsedProgress(std::string what, double after_s = 2.0);
  // `done` of `total` steps finished; `label` says what runs next (or what just finished).
  void update(int done, int total, const std::string& label = "");
  // Ends the bar's line when it was drawn.
  ~ElapsedProgress();
  ElapsedProgress(const ElapsedProgress&) = delete;
  ElapsedProgress& operator=(const ElapsedProgress&) = delete;

 private:
  ProgressBar bar_;
  std::string what_;
  double after_s_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  bool drawn_ = false;
};

}  // namespace numatwin::cli
