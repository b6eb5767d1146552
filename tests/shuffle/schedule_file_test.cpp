// Schedule files (shuffle/schedule_file.hpp, docs/shuffle-schedule-format.md): a file as
// `numatwin schedule --out` writes it reads back; every kind of bad file gives its one line
// "<file>: <pointer>: <expectation>".
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "numatwin/shuffle/schedule_file.hpp"

namespace numatwin::shuffle {
namespace {

const std::string kGood = R"({
 "format": "numatwin-shuffle-schedule",
 "format_version": 1,
 "topology": "four",
 "threads": 3,
 "cpus": [0, 4, 8],
 "piece_bytes": 1.5e6,
 "designed": true,
 "estimate_s": 0.25,
 "bound_s": 0.2,
 "steps": [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
})";

// kGood with `from` replaced by `to` (which must occur once).
std::string edited(const std::string& from, const std::string& to) {
  std::string s = kGood;
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return s;
  EXPECT_EQ(s.find(from, at + 1), std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  try {
    parse_schedule_file(text, "s.json");
  } catch (const ScheduleFileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ScheduleFileTest, ReadsEveryField) {
  const ScheduleFile f = parse_schedule_file(kGood, "s.json");
  EXPECT_EQ(f.topology, "four");
  EXPECT_EQ(f.threads, 3);
  EXPECT_EQ(f.cpus, (std::vector<int>{0, 4, 8}));
  EXPECT_DOUBLE_EQ(f.piece_bytes, 1.5e6);
  EXPECT_TRUE(f.designed);
  EXPECT_DOUBLE_EQ(f.estimate_s, 0.25);
  EXPECT_DOUBLE_EQ(f.bound_s, 0.2);
  EXPECT_EQ(f.schedule.steps, Schedule::ring(3).steps);
  EXPECT_NO_THROW(check_schedule(f.schedule, 3));
  EXPECT_EQ(f.workload, Workload::kShuffle);  // a version-1 file without `workload` is a shuffle
}

TEST(ScheduleFileTest, ReadsTheWorkloadAnOrderIsFor) {
  const std::pair<const char*, Workload> cases[] = {
      {"shuffle", Workload::kShuffle}, {"migration", Workload::kMigration}, {"migration-copy", Workload::kMigrationCopy}};
  for (const auto& [name, workload] : cases) {
    const ScheduleFile f = parse_schedule_file(edited("\"topology\"", std::string("\"workload\": \"") + name + "\", \"topology\""), "s.json");
    EXPECT_EQ(f.workload, workload) << name;
    EXPECT_EQ(workload_name(f.workload), name);
  }
}

TEST(ScheduleFileTest, BadWorkloadsGiveOneLineNamingThePointer) {
  EXPECT_EQ(error_of(edited("\"topology\"", "\"workload\": \"migrate\", \"topology\"")),
            "s.json: /workload: expected \"shuffle\", \"migration\" or \"migration-copy\", found \"migrate\"");
  EXPECT_EQ(error_of(edited("\"topology\"", "\"workload\": \"Migration\", \"topology\"")),
            "s.json: /workload: expected \"shuffle\", \"migration\" or \"migration-copy\", found \"Migration\"");
  EXPECT_EQ(error_of(edited("\"topology\"", "\"workload\": 2, \"topology\"")),
            "s.json: /workload: expected \"shuffle\", \"migration\" or \"migration-copy\", found 2");
  EXPECT_EQ(error_of(edited("\"topology\"", "\"workload\": null, \"topology\"")),
            "s.json: /workload: expected \"shuffle\", \"migration\" or \"migration-copy\", found null");
}

TEST(ScheduleFileTest, OptionalFieldsMayBeLeftOut) {
  const ScheduleFile f = parse_schedule_file(
      R"({"format": "numatwin-shuffle-schedule", "format_version": 1, "threads": 1, "steps": [[0]]})", "s.json");
  EXPECT_EQ(f.threads, 1);
  EXPECT_TRUE(f.cpus.empty());
  EXPECT_FALSE(f.designed);
  EXPECT_EQ(f.schedule.steps, (std::vector<std::vector<int>>{{0}}));
}

TEST(ScheduleFileTest, BadFilesGiveOneLineNamingFilePointerAndExpectation) {
  EXPECT_EQ(error_of("{\"format\": "), "s.json: not valid JSON (byte 12): expected a shuffle schedule");
  EXPECT_EQ(error_of("[1]"), "s.json: expected a shuffle schedule object at the top level, found an array");
  EXPECT_EQ(error_of(edited("\"format\": \"numatwin-shuffle-schedule\",", "")), "s.json: /format: missing; expected a value here");
  EXPECT_EQ(error_of(edited("numatwin-shuffle-schedule", "numatwin-topology")),
            "s.json: /format: expected \"numatwin-shuffle-schedule\", found \"numatwin-topology\"");
  EXPECT_EQ(error_of(edited("\"format_version\": 1", "\"format_version\": 2")),
            "s.json: /format_version: expected format_version 1 (the only version this reader knows), found 2");
  EXPECT_EQ(error_of(edited("\"designed\"", "\"desinged\"")),
            "s.json: /desinged: unknown field; expected one of format, format_version, workload, topology, threads, cpus, "
            "piece_bytes, designed, estimate_s, bound_s, steps");
  EXPECT_EQ(error_of(edited("\"threads\": 3", "\"threads\": 0")), "s.json: /threads: expected a thread count 1..1048576, found 0");
  EXPECT_EQ(error_of(edited("\"threads\": 3", "\"threads\": \"3\"")),
            "s.json: /threads: expected a thread count 1..1048576, found \"3\"");
  EXPECT_EQ(error_of(edited("[0, 4, 8]", "[0, 4]")), "s.json: /cpus: expected one CPU per thread (3 entries), found 2 entries");
  EXPECT_EQ(error_of(edited("[0, 4, 8]", "[0, -4, 8]")), "s.json: /cpus/1: expected a CPU index 0..2147483647, found -4");
  EXPECT_EQ(error_of(edited("1.5e6", "0")), "s.json: /piece_bytes: expected a piece size in bytes > 0, found 0");
  EXPECT_EQ(error_of(edited("true", "1")), "s.json: /designed: expected true or false, found 1");
  EXPECT_EQ(error_of(edited("0.25", "-1")), "s.json: /estimate_s: expected seconds >= 0, found -1");
  EXPECT_EQ(error_of(edited("[[0, 1, 2], [1, 2, 0], [2, 0, 1]]", "[[0, 1, 2], [1, 2, 0]]")),
            "s.json: /steps: expected one step per thread (3 entries), found 2 entries");
  EXPECT_EQ(error_of(edited("[1, 2, 0]", "{}")),
            "s.json: /steps/1: expected the producer each consumer reads in this step, one per thread, found an object");
  EXPECT_EQ(error_of(edited("[1, 2, 0]", "[1, 7, 0]")), "s.json: /steps/1/1: expected a producer thread 0..2, found 7");
  EXPECT_EQ(error_of(edited("[1, 2, 0]", "[1, 1, 0]")),
            "s.json: /steps/1/1: expected every producer once per step, found producer 1 again (consumer 0 reads it in this step)");
  EXPECT_EQ(error_of(edited("[1, 2, 0]", "[0, 2, 1]")),
            "s.json: /steps/1/0: expected consumer 0 to read every producer once, found producer 0 again (it read it in step 0)");
  EXPECT_EQ(error_of(edited("\"steps\": [[0, 1, 2], [1, 2, 0], [2, 0, 1]]", "\"steps\": null")),
            "s.json: /steps: expected one step per thread, found null");
}

TEST(ScheduleFileTest, WriterAndReaderRoundTrip) {
  const ScheduleFile f = parse_schedule_file(kGood, "s.json");
  const std::string text = schedule_file_text(f);
  const ScheduleFile back = parse_schedule_file(text, "back.json");
  EXPECT_EQ(back.topology, f.topology);
  EXPECT_EQ(back.threads, f.threads);
  EXPECT_EQ(back.cpus, f.cpus);
  EXPECT_DOUBLE_EQ(back.piece_bytes, f.piece_bytes);
  EXPECT_EQ(back.designed, f.designed);
  EXPECT_DOUBLE_EQ(back.estimate_s, f.estimate_s);
  EXPECT_DOUBLE_EQ(back.bound_s, f.bound_s);
  EXPECT_EQ(back.schedule.steps, f.schedule.steps);
  EXPECT_EQ(schedule_file_text(back), text);
  EXPECT_EQ(text.find("workload"), std::string::npos);  // a shuffle file stays what version-1 readers know
  ScheduleFile migration = f;
  migration.workload = Workload::kMigrationCopy;
  const std::string migration_text = schedule_file_text(migration);
  EXPECT_NE(migration_text.find("\"workload\": \"migration-copy\""), std::string::npos);
  EXPECT_EQ(parse_schedule_file(migration_text, "m.json").workload, Workload::kMigrationCopy);
  // Only the required fields and `designed` when nothing else is set.
  ScheduleFile minimal;
  minimal.threads = 1;
  minimal.schedule.steps = {{0}};
  EXPECT_EQ(schedule_file_text(minimal),
            "{\n \"format\": \"numatwin-shuffle-schedule\",\n \"format_version\": 1,\n \"threads\": 1,\n \"designed\": false,\n"
            " \"steps\": [\n  [\n   0\n  ]\n ]\n}\n");
  // What the reader would refuse is not written.
  ScheduleFile naive = minimal;
  naive.threads = 2;
  naive.schedule = Schedule::naive(2);
  EXPECT_THROW((void)schedule_file_text(naive), std::invalid_argument);
  ScheduleFile short_cpus = f;
  short_cpus.cpus.pop_back();
  EXPECT_THROW((void)schedule_file_text(short_cpus), std::invalid_argument);
}

TEST(ScheduleFileTest, ReadsFilesAndNamesOnesItCannotOpen) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "numatwin-shuffle-schedule-test.json";
  {
    std::ofstream out(path);
    out << kGood;
  }
  EXPECT_EQ(read_schedule_file(path.string()).threads, 3);
  std::filesystem::remove(path);
  try {
    read_schedule_file(path.string());
    FAIL() << "a missing file was read";
  } catch (const ScheduleFileError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ": cannot open the file for reading");
    EXPECT_EQ(e.file(), path.string());
    EXPECT_EQ(e.json_pointer(), "");
  }
}

}  // namespace
}  // namespace numatwin::shuffle
