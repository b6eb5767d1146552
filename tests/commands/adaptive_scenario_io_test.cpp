// The adaptive scenario reader behind `numatwin adaptive --scenario`
// (cli/src/io/adaptive_scenario_io.hpp): regression tests for what fuzz/adaptive_scenario_fuzzer's
// target found. The command's own behaviour is tested end to end in tests/cli/cli_adaptive_test.py.
#include "io/adaptive_scenario_io.hpp"

#include <gtest/gtest.h>

#include <string>

#include "numatwin/model/input_error.hpp"

namespace numatwin::cli {
namespace {

// The flows reader's finding (fuzz/flows_file_fuzzer, minimised input "8e889") holds here too:
// nlohmann::json throws out_of_range, not parse_error, for a number too large for a double, and
// the reader let it through.
TEST(AdaptiveScenarioTest, ANumberTooLargeForADoubleIsAnInputErrorNamingTheFile) {
  for (const char* text :
       {"8e889", R"({"name": "x", "duration_s": 1e400, "tables": [], "clients": []})"}) {
    try {
      parse_adaptive_scenario(text, "scenario.json", 2);
      ADD_FAILURE() << "expected an InputError for " << text;
    } catch (const model::InputError& e) {
      EXPECT_EQ(e.file(), "scenario.json");
      EXPECT_NE(std::string(e.what()).find("scenario.json: unreadable JSON ("), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("number overflow parsing"), std::string::npos)
          << e.what();
    }
  }
}

TEST(AdaptiveScenarioTest, AScenarioReadsFromItsText) {
  const sim::AdaptiveScenario sc = parse_adaptive_scenario(
      R"({"name": "two", "duration_s": 1, "tables": [{"name": "t", "size_bytes": 1e9, "socket": 1}],
          "clients": [{"count": 2, "tables": {"t": 1}, "queries": {"scan": 1}}]})",
      "scenario.json", 2);
  ASSERT_EQ(sc.tables.size(), 1u);
  EXPECT_EQ(sc.tables[0].socket, 1);
  EXPECT_EQ(sc.clients[0].count, 2);
}

}  // namespace
}  // namespace numatwin::cli
