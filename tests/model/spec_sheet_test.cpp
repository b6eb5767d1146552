// The spec sheet reader: a sheet as a buyer writes it, and one clear error (file, JSON pointer,
// expectation) for each way a sheet can be wrong or impossible.
#include <gtest/gtest.h>

#include <string>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/spec_sheet.hpp"
#include "numatwin/model/spec_sheet_json.hpp"

namespace numatwin::model {
namespace {

// A two-socket part with three uneven dies; `socket_extra` and `root_extra` are spliced in.
std::string sheet(const std::string& socket_extra = "", const std::string& root_extra = "",
                  const std::string& dies = R"([{"cores": 43}, {"cores": 43}, {"cores": 42}])",
                  const std::string& mode = "snc-off", int channels = 12) {
  return R"({"format": "numatwin-spec-sheet", "format_version": 1, "name": "t", "vendor": "intel", "sockets": 2,
   "socket": {"generation": "granite-rapids", "cores": 128, "threads_per_core": 2, "base_frequency_ghz": 2.0,
              "l1d_bytes_per_core": 49152, "l2_bytes_per_core": 2097152, "l3_bytes": 528482304,
              "dies": )" + dies + R"(, "memory": {"kind": "ddr5", "channels": )" + std::to_string(channels) +
         R"(, "mts": 6400, "capacity_bytes": 1000000000})" + socket_extra + R"(},
   "mode": ")" + mode + R"(", "socket_links": {"kind": "upi", "count": 6, "gts": 24})" + root_extra + "}";
}

// The error's pointer and text, or "parsed" when the sheet was accepted.
std::pair<std::string, std::string> error_of(const std::string& text) {
  try {
    parse_spec_sheet(text, "s.json");
  } catch (const InputError& e) {
    return {e.json_pointer(), e.what()};
  }
  return {"parsed", ""};
}

TEST(SpecSheetTest, ReadsABuyersSheetWithUnevenDies) {
  const SpecSheet s = parse_spec_sheet(sheet(), "s.json");
  EXPECT_EQ(s.sockets, 2);
  EXPECT_EQ(s.socket.cores, 128);
  ASSERT_EQ(s.socket.dies.size(), 3u);
  EXPECT_EQ(s.socket.dies[2].cores, 42);
  EXPECT_EQ(s.mode, (NumaMode{NumaMode::Scheme::kSnc, 1}));
  ASSERT_TRUE(s.socket_links.has_value());
  // 6 links x 24 GT/s x 2 B = 288 GB/s per direction.
  EXPECT_DOUBLE_EQ(theoretical_link_gbps(*s.socket_links), 288.0);
  // 12 channels x 6400 MT/s x 8 B = 614.4 GB/s.
  EXPECT_DOUBLE_EQ(theoretical_dram_gbps(s.socket.memory), 614.4);
}

TEST(SpecSheetTest, DiesWhoseCoresDoNotAddUpAreRefused) {
  const auto [pointer, what] = error_of(sheet("", "", R"([{"cores": 43}, {"cores": 43}, {"cores": 43}])"));
  EXPECT_EQ(pointer, "/socket/dies");
  EXPECT_NE(what.find("the dies have 129"), std::string::npos) << what;
}

TEST(SpecSheetTest, ChannelsThatDoNotSplitOverTheNodesAreRefused) {
  // 8 channels cannot go evenly to 3 SNC nodes.
  const auto [pointer, what] = error_of(sheet("", "", R"([{"cores": 128}])", "snc3", 8));
  EXPECT_EQ(pointer, "/socket/memory/channels");
  EXPECT_NE(what.find("snc3"), std::string::npos) << what;
}

TEST(SpecSheetTest, ADeviceOnASocketThatDoesNotExistIsRefused) {
  const auto [pointer, what] = error_of(sheet("", R"(, "cxl_devices": [{"socket": 2, "pcie_generation": 5,
      "lanes": 8, "media": "ddr5", "media_mts": 4800, "capacity_bytes": 1000}])"));
  EXPECT_EQ(pointer, "/cxl_devices/0/socket");
  EXPECT_NE(what.find("0..1"), std::string::npos) << what;
}

TEST(SpecSheetTest, MoreCxlDevicesThanASocketsLanesCarryAreRefused) {
  // 33 x4 devices would need 132 lanes; the cap is 32 per socket.
  const auto [pointer, what] = error_of(sheet("", R"(, "cxl_devices": [{"socket": 1, "pcie_generation": 5,
      "lanes": 4, "media": "ddr5", "media_mts": 4800, "capacity_bytes": 1000, "count": 33}])"));
  EXPECT_EQ(pointer, "/cxl_devices/0/count");
  EXPECT_NE(what.find("got 33"), std::string::npos) << what;
}

TEST(SpecSheetTest, EachBadFieldIsNamedByItsPointer) {
  EXPECT_EQ(error_of(sheet(R"(, "cache": 1)")).first, "/socket/cache");
  EXPECT_EQ(error_of(sheet("", "", R"([{"cores": 128}])", "snc5")).first, "/mode");
  EXPECT_EQ(error_of(sheet("", R"(, "snoop_mode": "broadcast")")).first, "/snoop_mode");
  EXPECT_EQ(error_of(sheet(R"(, "hbm": {"kind": "ddr5", "stacks": 4, "capacity_bytes": 1, "bandwidth_gbps": 1})")).first,
            "/socket/hbm/kind");
  EXPECT_EQ(error_of(sheet("", R"(, "sources": {"socket/cores": "x"})")).first, "/sources");
  // A two-socket machine without its links.
  std::string no_links = sheet();
  no_links.replace(no_links.find(R"(, "socket_links")"), std::string(R"(, "socket_links": {"kind": "upi", "count": 6, "gts": 24})").size(), "");
  EXPECT_EQ(error_of(no_links).first, "/socket_links");
}

TEST(SpecSheetTest, ModesTheVendorDoesNotOfferAreRefused) {
  std::string amd = sheet("", "", R"([{"cores": 128}])", "snc2");
  amd.replace(amd.find("\"intel\""), 7, "\"amd\"");
  EXPECT_EQ(error_of(amd).first, "/mode");
}

TEST(SpecSheetTest, TextThatIsNotJsonSaysWhere) {
  const auto [pointer, what] = error_of("{\"format\": ");
  EXPECT_EQ(pointer, "");
  EXPECT_NE(what.find("not valid JSON"), std::string::npos) << what;
}

TEST(SpecSheetTest, PcieLaneRatesFollowTheEncoding) {
  // Gen 5: 32 GT/s x 128/130 / 8 bits = 3.9385 GB/s; gen 6: 64 GT/s / 8 x 242/256 = 7.5625.
  EXPECT_NEAR(pcie_lane_gbps(5), 3.93846, 1e-5);
  EXPECT_NEAR(pcie_lane_gbps(6), 7.5625, 1e-9);
  EXPECT_THROW((void)pcie_lane_gbps(2), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::model
