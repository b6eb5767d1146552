// Calibration consistency: for every shipped machine, simulating the microbenchmarks listed in
// its "measurements" block reproduces the measured figures within 5 %. This checks that the
// file's parameters and the model agree with the data they were calibrated on; it is not a test
// of the model's predictions for algorithms (those are compared with real runs by validate/).
#include <gtest/gtest.h>

#include <filesystem>

#include "numatwin/model/microbenchmark.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::model {
namespace {

std::vector<std::string> shipped_files() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(NUMATWIN_TOPOLOGY_DIR)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class ShippedMeasurementTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedMeasurementTest, ModelReproducesEveryMeasurementWithinFivePercent) {
  const Topology t = load_topology(GetParam());
  const Routing routing(t);
  BandwidthModel model(t, routing);
  for (const Measurement& m : t.measurements) {
    const MeasurementPrediction p = predict_measurement(t, routing, model, m);
    EXPECT_LE(std::abs(p.relative_error()), 0.05)
        << t.name << " " << m.id << ": predicted " << p.predicted << ", measured " << p.measured;
  }
}

INSTANTIATE_TEST_SUITE_P(Machines, ShippedMeasurementTest, ::testing::ValuesIn(shipped_files()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = std::filesystem::path(param_info.param).stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(ShippedMeasurementsTest, TheStudysMachinesCarryTheirMicrobenchmarks) {
  // The Li et al. and Psaroudakis et al. machines must keep their measured figures in the file,
  // or the test above would pass vacuously.
  for (const char* name : {"nehalem-ex-4s", "nehalem-ex-4s-4link", "nehalem-ex-8s", "xeon-e7-4880v2-4s",
                           "xeon-e7-8880v2-8s", "sgi-uv300h-32s"}) {
    const Topology t = load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (std::string(name) + ".json"));
    EXPECT_GE(t.measurements.size(), 1u) << name;
  }
}

}  // namespace
}  // namespace numatwin::model
