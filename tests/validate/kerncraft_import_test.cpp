// kerncraft machine files: the MEM load curve is read exactly, turned into calibration points
// placed as kerncraft measured them, and bad files give one clear error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/kerncraft_import.hpp"

namespace numatwin::validate {
namespace {

const std::filesystem::path kData = std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/kerncraft";

TEST(KerncraftImportTest, ReadsTheMemoryLoadCurve) {
  const KerncraftMachine m = load_kerncraft(kData / "SkylakeSP_Gold-6148.yml");
  EXPECT_EQ(m.sockets, 2);
  EXPECT_EQ(m.cores_per_socket, 20);
  EXPECT_EQ(m.cores_per_numa_domain, 20);
  ASSERT_FALSE(m.memory_load.empty());
  const KerncraftCurve& one = m.memory_load.front();
  EXPECT_EQ(one.threads_per_core, 1);
  ASSERT_EQ(one.cores.size(), 20u);
  // Values as printed in the file: 14.32 GB/s with one core, 117.82 GB/s with 20.
  EXPECT_DOUBLE_EQ(one.load_gbps.front(), 14.32);
  EXPECT_DOUBLE_EQ(one.load_gbps.back(), 117.82);
}

TEST(KerncraftImportTest, PointsFillOneDomainBeforeTheNext) {
  // Cascade Lake with SNC: 2 domains of 10 cores per socket; 14 cores = 10 on the first domain
  // (reading its memory) + 4 on the second.
  const KerncraftMachine m = load_kerncraft(kData / "CascadelakeSP_Gold-6248_SNC.yml");
  model::GeneratorParams p;
  p.nodes = 4;
  p.cores_per_node = 10;
  const CalibrationData data = calibration_data_from_kerncraft(m, model::generate_topology(p));
  const CalibrationPoint& fourteen = data.points.at(13);
  ASSERT_EQ(fourteen.streams.size(), 2u);
  EXPECT_EQ(fourteen.streams[0].threads, 10);
  EXPECT_EQ(fourteen.streams[0].cpu_node, fourteen.streams[0].memory_node);
  EXPECT_EQ(fourteen.streams[1].threads, 4);
  EXPECT_EQ(fourteen.streams[1].cpu_node, 1);
}

TEST(KerncraftImportTest, RejectsTopologiesThatCannotHoldTheCurve) {
  const KerncraftMachine m = load_kerncraft(kData / "SkylakeSP_Gold-6148.yml");
  model::GeneratorParams p;
  p.nodes = 2;
  p.cores_per_node = 8;  // the file needs 20 cores per domain
  EXPECT_THROW(calibration_data_from_kerncraft(m, model::generate_topology(p)), model::InputError);
}

TEST(KerncraftImportTest, BadFilesGiveOneClearError) {
  const auto dir = std::filesystem::temp_directory_path() / "numatwin_kerncraft_test";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  EXPECT_THROW(load_kerncraft(dir / "missing.yml"), model::InputError);
  EXPECT_THROW(load_kerncraft(write("broken.yml", "sockets: [1, 2\n")), model::InputError);
  try {
    load_kerncraft(write("nomem.yml", "sockets: 1\ncores per socket: 2\nthreads per core: 1\nNUMA domains per socket: 1\n"
                                      "cores per NUMA domain: 2\nbenchmarks:\n  measurements: {}\n"));
    FAIL();
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.json_pointer(), "/benchmarks/measurements/MEM");
  }
  try {
    load_kerncraft(write("unit.yml", "sockets: 1\ncores per socket: 2\nthreads per core: 1\nNUMA domains per socket: 1\n"
                                     "cores per NUMA domain: 2\nbenchmarks:\n  measurements:\n    MEM:\n      1:\n"
                                     "        cores: [1, 2]\n        results:\n          load: [1 GB/s, 2 furlongs/s]\n"));
    FAIL();
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.json_pointer(), "/benchmarks/measurements/MEM/1/results/load/1");
    EXPECT_NE(e.expectation().find("unknown unit"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace numatwin::validate
