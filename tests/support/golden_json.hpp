// Comparing a simulation's summary with its golden file (tests/data/golden/): objects and arrays
// must have the same structure, strings and booleans be equal, and numbers agree to a relative
// tolerance (a parsed 0 is unsigned, a computed one signed: numbers compare as numbers).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace numatwin::testing_support {

inline void expect_close(const nlohmann::ordered_json& expected, const nlohmann::ordered_json& actual, const std::string& path,
                         double relative = 1e-6) {
  if (expected.is_number() && actual.is_number()) {
    const double e = expected.get<double>();
    EXPECT_NEAR(actual.get<double>(), e, relative * std::max(1.0, std::abs(e))) << path;
    return;
  }
  ASSERT_EQ(expected.type(), actual.type()) << path;
  if (expected.is_object()) {
    ASSERT_EQ(expected.size(), actual.size()) << path;
    for (const auto& [key, value] : expected.items()) {
      ASSERT_TRUE(actual.contains(key)) << path << "/" << key;
      expect_close(value, actual[key], path + "/" + key, relative);
    }
  } else if (expected.is_array()) {
    ASSERT_EQ(expected.size(), actual.size()) << path;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      expect_close(expected[i], actual[i], path + "/" + std::to_string(i), relative);
    }
  } else {
    EXPECT_EQ(expected, actual) << path;
  }
}

}  // namespace numatwin::testing_support
