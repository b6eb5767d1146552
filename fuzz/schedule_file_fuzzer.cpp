// libFuzzer target for the schedule file reader (shuffle/schedule_file.hpp): for any input
// text, parse_schedule_file must either return a schedule or throw ScheduleFileError. Any other
// exception, crash or undefined behaviour is a finding; so is an accepted schedule that the
// runner's own check refuses or that is not a Latin square (what format version 1 promises).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "numatwin/shuffle/schedule.hpp"
#include "numatwin/shuffle/schedule_file.hpp"

namespace {

[[noreturn]] void report_finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "schedule_file_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();  // libFuzzer saves the input as a crash artifact
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace shuffle = numatwin::shuffle;
  const std::string text(reinterpret_cast<const char*>(data), size);
  shuffle::ScheduleFile file;
  try {
    file = shuffle::parse_schedule_file(text, "<fuzz-input>");
  } catch (const shuffle::ScheduleFileError&) {
    return 0;  // refused with the one-line error: fine
  } catch (const std::exception& e) {
    report_finding("an exception other than ScheduleFileError", e.what());
  }
  try {
    shuffle::check_schedule(file.schedule, file.threads);
  } catch (const std::exception& e) {
    report_finding("an accepted schedule fails check_schedule", e.what());
  }
  if (!file.schedule.is_latin_square()) report_finding("an accepted schedule is not a Latin square", text);
  if (!file.cpus.empty() && file.cpus.size() != static_cast<std::size_t>(file.threads))
    report_finding("an accepted schedule has cpus for another thread count", text);
  return 0;
}
