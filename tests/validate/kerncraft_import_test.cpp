// kerncraft machine files: the MEM load curve is read exactly, turned into calibration points
// placed as kerncraft measured them, and bad files give one clear error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <tuple>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/calibrate/kerncraft_import.hpp"

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

TEST(KerncraftImportTest, ReadsTheMemoryHierarchyForTheEcmModel) {
  // SkylakeSP_Gold-6148.yml as the file writes it: 2.4 GHz, -mcpu=skylake-avx512; L1 32.00 kB per
  // core (its throughput from the in-core model), L2 1.00 MB per core at 64 B/cy half-duplex, L3
  // 27.5 MB per 20 cores at 16 B/cy full-duplex, MEM; no level's transfers overlap (Intel).
  const KerncraftMachine m = load_kerncraft(kData / "SkylakeSP_Gold-6148.yml");
  EXPECT_DOUBLE_EQ(m.clock_ghz, 2.4);
  EXPECT_EQ(m.llvm_mca_cpu, "skylake-avx512");
  ASSERT_EQ(m.hierarchy.size(), 4u);
  EXPECT_EQ(m.hierarchy[0].name, "L1");
  EXPECT_DOUBLE_EQ(m.hierarchy[0].size_bytes, 32.0 * 1024);
  EXPECT_DOUBLE_EQ(m.hierarchy[0].bytes_per_cycle, 0.0);
  EXPECT_DOUBLE_EQ(m.hierarchy[1].size_bytes, 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(m.hierarchy[1].bytes_per_cycle, 64.0);
  EXPECT_FALSE(m.hierarchy[1].full_duplex);
  EXPECT_DOUBLE_EQ(m.hierarchy[2].size_bytes, 27.5 * 1024 * 1024);
  EXPECT_EQ(m.hierarchy[2].cores_per_group, 20);
  EXPECT_DOUBLE_EQ(m.hierarchy[2].bytes_per_cycle, 16.0);
  EXPECT_TRUE(m.hierarchy[2].full_duplex);
  EXPECT_EQ(m.hierarchy[3].name, "MEM");
  for (const KerncraftLevel& level : m.hierarchy) EXPECT_FALSE(level.transfers_overlap) << level.name;
}

TEST(KerncraftImportTest, AHierarchyThatContradictsItselfIsOneErrorNamingTheField) {
  const auto dir = std::filesystem::temp_directory_path() / "numatwin_kerncraft_hierarchy_test";
  std::filesystem::create_directories(dir);
  std::ifstream in(kData / "SkylakeSP_Gold-6148.yml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto edited = [&](const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    std::string changed = text;
    changed.replace(at, from.size(), to);
    const auto path = dir / "edited.yml";
    std::ofstream(path) << changed;
    return path;
  };
  auto error_of = [](const std::filesystem::path& path) -> std::pair<std::string, std::string> {
    try {
      load_kerncraft(path);
    } catch (const model::InputError& e) {
      return {e.json_pointer(), e.expectation()};
    }
    return {"no error", ""};
  };
  // An L2 of 64 MB behind a 27.5 MB L3 (sizes only, no geometry to contradict them).
  const std::string head = "sockets: 1\ncores per socket: 2\nthreads per core: 1\nNUMA domains per socket: 1\ncores per NUMA domain: 2\n"
                           "benchmarks:\n  measurements:\n    MEM:\n      1:\n        cores: [1]\n        results:\n          load: [1 GB/s]\n";
  const auto small = dir / "small.yml";
  std::ofstream(small) << head
                       << "memory hierarchy:\n"
                          "- {level: L1, size per group: 32 kB, cores per group: 1, upstream throughput: [architecture code analyzer, [2D]], transfers overlap: false}\n"
                          "- {level: L2, size per group: 64 MB, cores per group: 1, upstream throughput: [64 B/cy, half-duplex], transfers overlap: false}\n"
                          "- {level: L3, size per group: 27.5 MB, cores per group: 2, upstream throughput: [16 B/cy, full-duplex], transfers overlap: false}\n"
                          "- {level: MEM, cores per group: 2, upstream throughput: [full socket memory bandwidth, half-duplex], transfers overlap: false}\n";
  auto [pointer, expectation] = error_of(small);
  EXPECT_EQ(pointer, "/memory hierarchy/1/size per group");
  EXPECT_NE(expectation.find("larger than the next level, L3"), std::string::npos) << expectation;
  // A throughput of zero.
  std::tie(pointer, expectation) = error_of(edited("[16 B/cy, full-duplex]", "[0 B/cy, full-duplex]"));
  EXPECT_EQ(pointer, "/memory hierarchy/2/upstream throughput/0");
  EXPECT_NE(expectation.find("expected a throughput > 0"), std::string::npos) << expectation;
  // A size that its own geometry contradicts (L2: 1024 sets x 16 ways x 64 B = 1 MiB).
  std::tie(pointer, expectation) = error_of(edited("size per group: 1.00 MB", "size per group: 2.00 MB"));
  EXPECT_EQ(pointer, "/memory hierarchy/1/size per group");
  EXPECT_NE(expectation.find("sets x ways x cl_size = 1048576 B"), std::string::npos) << expectation;
  // A clock that is not one.
  std::tie(pointer, expectation) = error_of(edited("clock: 2.4 GHz", "clock: fast"));
  EXPECT_EQ(pointer, "/clock");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace numatwin::validate
