// The schedule file (docs/shuffle-schedule-format.md): JSON written by `numatwin schedule
// --out`, format "numatwin-shuffle-schedule", format_version 1.
//
// Reading checks, in document order: valid JSON, an object with only the known fields, the
// format name and version, `workload` (if present) one of shuffle, migration, migration-copy,
// `threads` >= 1, `cpus` (if present) one CPU >= 0 per thread, the
// numbers in range, and `steps`: `threads` rows of `threads` producers, every row and every
// column a permutation (a Latin square). The first failure throws ScheduleFileError, whose
// what() is one line "<file>: <JSON pointer>: <expectation>", e.g.
//   ring.json: /steps/2/1: expected a producer thread 0..3, found 7
// (the pointer part is left out for errors about the whole document).
//
// This header is C++17 and needs nothing but the standard library.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/shuffle/schedule.hpp"

namespace numatwin::shuffle {

inline constexpr const char* kScheduleFormat = "numatwin-shuffle-schedule";
inline constexpr int kScheduleFormatVersion = 1;

class ScheduleFileError : public std::runtime_error {
 public:
  ScheduleFileError(std::string file, std::string json_pointer, std::string expectation);
  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& json_pointer() const { return json_pointer_; }
  [[nodiscard]] const std::string& expectation() const { return expectation_; }

 private:
  std::string file_;
  std::string json_pointer_;
  std::string expectation_;
};

struct ScheduleFile {
  Workload workload = Workload::kShuffle;  // what the order is for ("workload"; absent: a shuffle)
  std::string topology;     // the machine it was designed for ("" when absent)
  int threads = 0;
  std::vector<int> cpus;    // the topology's CPU of each thread (empty when absent)
  double piece_bytes = 0;   // bytes per piece it was designed for (0 when absent)
  bool designed = false;    // true: a designed order; false: the ring (nothing better found)
  double estimate_s = 0;    // the design's estimate and bound (0 when absent)
  double bound_s = 0;
  Schedule schedule;
};

// Parses a schedule document; `source_name` names it in errors.
ScheduleFile parse_schedule_file(const std::string& json_text, const std::string& source_name);
// Reads and parses a file (ScheduleFileError with an empty pointer when it cannot be read).
ScheduleFile read_schedule_file(const std::string& path);
// The document for `file` (what `numatwin schedule --out` writes; one space of indentation per
// level, fields in the table's order; workload only when it is not a shuffle (so that shuffle
// files stay what older readers know), topology, cpus and piece_bytes only when set, estimate_s
// and bound_s only when > 0). Throws std::invalid_argument when the schedule is not a Latin
// square of `threads` or cpus has another length: the reader would refuse it.
std::string schedule_file_text(const ScheduleFile& file);

}  // namespace numatwin::shuffle
