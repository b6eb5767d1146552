// The flows file reader behind `numatwin flows --flows-file` (cli/src/io/flow_spec.hpp): regression
// tests for what fuzz/flows_file_fuzzer found. The command's own behaviour is tested end to end
// in tests/cli/cli_flows_test.py.
#include "io/flow_spec.hpp"

#include <gtest/gtest.h>

#include <string>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::cli {
namespace {

model::Topology nehalem() {
  return model::load_topology(std::string(NUMATWIN_TOPOLOGY_DIR) + "/nehalem-ex-4s-4link.json");
}

std::string flows_error(const std::string& text) {
  try {
    parse_flows_file(text, "flows.json", nehalem());
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.file(), "flows.json");
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError for " << text;
  return "";
}

// Found by fuzz/flows_file_fuzzer (minimised input "8e889"): nlohmann::json throws out_of_range,
// not parse_error, for a number too large for a double, and the reader let it through.
TEST(FlowsFileTest, ANumberTooLargeForADoubleIsAnInputErrorNamingTheFile) {
  std::string message = flows_error("8e889");
  EXPECT_NE(message.find("flows.json: unreadable JSON ("), std::string::npos) << message;
  EXPECT_NE(message.find("number overflow parsing '8e889'"), std::string::npos) << message;
  message = flows_error(R"({"flows": [{"cpus": "s0:4", "read": "s1", "bytes": 1e400}]})");
  EXPECT_NE(message.find("number overflow parsing '1e400'"), std::string::npos) << message;
}

TEST(FlowsFileTest, AGoodFileResolvesAsTheSpecsDo) {
  const std::vector<ResolvedFlow> flows = parse_flows_file(
      R"({"flows": [{"cpus": "s0:12", "read": "s2"}, {"cpus": "s1:12", "read": "s2"}]})",
      "flows.json", nehalem());
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].cpu_ids.size(), 12u);
  EXPECT_EQ(flows[1].access_text, "read s2");
}

}  // namespace
}  // namespace numatwin::cli
