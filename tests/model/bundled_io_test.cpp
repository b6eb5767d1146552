// Bundled machines and shipped scenarios found by name or path (model/bundled_io.hpp): one place
// for the CLI, the GUI and the Python module (issue 36, D-2; the CLI threw and the GUI listed
// nothing for a missing folder, each with its own copy of the lookup).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "numatwin/model/bundled_io.hpp"
#include "numatwin/model/input_error.hpp"

namespace numatwin::model {
namespace {

TEST(BundledIoTest, TheFolderIsListedByNameAndAMissingFolderIsEmpty) {
  const auto files = bundled_json_files(NUMATWIN_TOPOLOGY_DIR);
  ASSERT_GE(files.size(), 10U);
  for (std::size_t i = 1; i < files.size(); ++i) EXPECT_LT(files[i - 1].stem(), files[i].stem());
  EXPECT_TRUE(bundled_json_files("/nonexistent/numatwin").empty());
  EXPECT_EQ(bundled_names("/nonexistent/numatwin"), "none");
}

TEST(BundledIoTest, ANameOrAPathFindsTheFileAndAnUnknownNameListsWhatThereIs) {
  const std::filesystem::path dir = NUMATWIN_TOPOLOGY_DIR;
  EXPECT_EQ(find_topology("nehalem-ex-4s", dir).name, "nehalem-ex-4s");
  EXPECT_EQ(find_topology((dir / "nehalem-ex-4s.json").string(), "/nonexistent").name, "nehalem-ex-4s");
  try {
    (void)find_topology("no-such-machine", dir);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no topology file or bundled machine named \"no-such-machine\""), std::string::npos) << what;
    EXPECT_NE(what.find("nehalem-ex-4s"), std::string::npos) << what;  // the names there are
  }
  // A name with '/' is a path only: never looked up in the folder.
  EXPECT_THROW((void)find_bundled_file("x/nehalem-ex-4s", dir, "topology"), std::runtime_error);
}

TEST(BundledIoTest, TheEnvironmentOverridesTheBuiltInFolder) {
  EXPECT_EQ(bundled_dir("NUMATWIN_TEST_UNSET_VARIABLE", "/built/in"), std::filesystem::path("/built/in"));
  ::setenv("NUMATWIN_TEST_BUNDLED_DIR", "/from/env", 1);
  EXPECT_EQ(bundled_dir("NUMATWIN_TEST_BUNDLED_DIR", "/built/in"), std::filesystem::path("/from/env"));
  ::setenv("NUMATWIN_TEST_BUNDLED_DIR", "", 1);  // empty: the built-in folder
  EXPECT_EQ(bundled_dir("NUMATWIN_TEST_BUNDLED_DIR", "/built/in"), std::filesystem::path("/built/in"));
  ::unsetenv("NUMATWIN_TEST_BUNDLED_DIR");
  EXPECT_EQ(find_scenario("psaroudakis-intro").filename(), "psaroudakis-intro.json");
}

}  // namespace
}  // namespace numatwin::model
