#include "numatwin/model/spec_sheet_json.hpp"

#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "numatwin/model/file_io.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/input_json.hpp"

namespace numatwin::model {

namespace {

using Json = nlohmann::json;
using Reader = JsonReader;

constexpr std::int64_t kMaxBytes = std::int64_t{1} << 60;  // 1 EiB: far above any machine

double positive(const Reader& r, const char* what) {
  const double v = r.number();
  if (!(v > 0.0)) r.fail(std::string("expected ") + what + " above zero");
  return v;
}

int count_in(const Reader& r, int min_value, int max_value) {
  return static_cast<int>(r.integer(min_value, max_value));
}

std::int64_t bytes(const Reader& r) { return r.integer(1, kMaxBytes); }

SpecMemoryKind memory_kind(const Reader& r) {
  try {
    return parse_spec_memory_kind(r.string(true));
  } catch (const std::invalid_argument& e) {
    r.fail(std::string("expected ") + e.what());
  }
}

DieSpec read_die(const Reader& r) {
  r.expect_object("a die {\"cores\": N, \"l3_bytes\": B}");
  r.allow_only({"cores", "l3_bytes", "gmi_links"});
  DieSpec d;
  d.cores = count_in(r.field("cores"), 1, 1024);
  if (r.has("l3_bytes")) d.l3_bytes = bytes(r.field("l3_bytes"));
  if (r.has("gmi_links")) d.gmi_links = count_in(r.field("gmi_links"), 1, 4);
  return d;
}

MemorySpec read_memory(const Reader& r) {
  r.expect_object("the socket's memory {\"kind\", \"channels\", \"mts\", \"capacity_bytes\"}");
  r.allow_only({"kind", "channels", "mts", "dimms_per_channel", "capacity_bytes"});
  MemorySpec m;
  m.kind = memory_kind(r.field("kind"));
  if (is_hbm(m.kind)) r.field("kind").fail("expected a DRAM kind here (HBM goes in /socket/hbm)");
  m.channels = count_in(r.field("channels"), 1, 64);
  m.mts = positive(r.field("mts"), "a transfer rate in MT/s");
  if (m.mts > 20000) r.field("mts").fail("expected MT/s (e.g. 6400), got more than 20000");
  if (r.has("dimms_per_channel")) m.dimms_per_channel = count_in(r.field("dimms_per_channel"), 1, 4);
  m.capacity_bytes = bytes(r.field("capacity_bytes"));
  return m;
}

HbmSpec read_hbm(const Reader& r) {
  r.expect_object("HBM {\"kind\", \"stacks\", \"capacity_bytes\", \"bandwidth_gbps\"}");
  r.allow_only({"kind", "stacks", "capacity_bytes", "bandwidth_gbps"});
  HbmSpec h;
  h.kind = memory_kind(r.field("kind"));
  if (!is_hbm(h.kind)) r.field("kind").fail("expected hbm2e or hbm3");
  h.stacks = count_in(r.field("stacks"), 1, 16);
  h.capacity_bytes = bytes(r.field("capacity_bytes"));
  h.bandwidth_gbps = positive(r.field("bandwidth_gbps"), "the HBM's theoretical bandwidth in GB/s");
  return h;
}

LinkSpec read_link(const Reader& r) {
  r.expect_object("a link {\"kind\", \"count\", \"gts\" or \"gbps_per_direction\"}");
  r.allow_only({"kind", "count", "gts", "bytes_per_transfer", "gbps_per_direction"});
  LinkSpec l;
  l.kind = r.field("kind").string(true);
  if (l.kind != "qpi" && l.kind != "upi" && l.kind != "xgmi" && l.kind != "nvlink-c2c" && l.kind != "infinity-fabric") {
    r.field("kind").fail("expected qpi, upi, xgmi, nvlink-c2c or infinity-fabric, got \"" + l.kind + "\"");
  }
  l.count = count_in(r.field("count"), 1, 16);
  if (r.has("gts")) l.gts = positive(r.field("gts"), "a rate in GT/s");
  if (r.has("bytes_per_transfer")) l.bytes_per_transfer = positive(r.field("bytes_per_transfer"), "bytes");
  if (r.has("gbps_per_direction")) {
    l.gbps_per_direction = positive(r.field("gbps_per_direction"), "a bandwidth in GB/s");
  }
  if (l.gts.has_value() == l.gbps_per_direction.has_value()) {
    r.fail("expected exactly one of gts (per link) and gbps_per_direction (all links)");
  }
  return l;
}

CxlDeviceSpec read_cxl(const Reader& r) {
  r.expect_object("a CXL device {\"socket\", \"pcie_generation\", \"lanes\", \"media\", ...}");
  r.allow_only({"socket", "pcie_generation", "lanes", "media", "media_channels", "media_mts", "capacity_bytes",
                "controller", "count"});
  CxlDeviceSpec c;
  c.socket = count_in(r.field("socket"), 0, 63);
  c.pcie_generation = count_in(r.field("pcie_generation"), 3, 6);
  c.lanes = count_in(r.field("lanes"), 1, 16);
  if (c.lanes != 1 && c.lanes != 2 && c.lanes != 4 && c.lanes != 8 && c.lanes != 16) {
    r.field("lanes").fail("expected a PCIe width: 1, 2, 4, 8 or 16 lanes");
  }
  c.media = memory_kind(r.field("media"));
  if (r.has("media_channels")) c.media_channels = count_in(r.field("media_channels"), 1, 16);
  c.media_mts = positive(r.field("media_mts"), "the media's rate in MT/s");
  c.capacity_bytes = bytes(r.field("capacity_bytes"));
  if (r.has("controller")) {
    c.controller = r.field("controller").string(true);
    if (c.controller != "asic" && c.controller != "fpga") r.field("controller").fail("expected asic or fpga");
  }
  if (r.has("count")) c.count = count_in(r.field("count"), 1, 64);
  return c;
}

AcceleratorSpec read_accelerator(const Reader& r) {
  r.expect_object("an accelerator {\"socket\", \"name\", \"link\", \"memory\"}");
  r.allow_only({"socket", "name", "link", "memory"});
  AcceleratorSpec a;
  a.socket = count_in(r.field("socket"), 0, 63);
  a.name = r.field("name").string(true);
  a.link = read_link(r.field("link"));
  a.memory = read_hbm(r.field("memory"));
  return a;
}

SocketSpec read_socket(const Reader& r) {
  r.expect_object("one socket's description");
  r.allow_only({"generation", "cores", "threads_per_core", "base_frequency_ghz", "max_frequency_ghz",
                "l1d_bytes_per_core", "l2_bytes_per_core", "l3_bytes", "dies", "memory", "hbm"});
  SocketSpec s;
  s.generation = r.field("generation").string(true);
  s.cores = count_in(r.field("cores"), 1, 1024);
  s.threads_per_core = count_in(r.field("threads_per_core"), 1, 8);
  if (r.has("base_frequency_ghz")) s.base_frequency_ghz = positive(r.field("base_frequency_ghz"), "a frequency in GHz");
  if (r.has("max_frequency_ghz")) s.max_frequency_ghz = positive(r.field("max_frequency_ghz"), "a frequency in GHz");
  if (!s.base_frequency_ghz && !s.max_frequency_ghz) r.fail("expected base_frequency_ghz or max_frequency_ghz (or both)");
  s.l1d_bytes_per_core = bytes(r.field("l1d_bytes_per_core"));
  s.l2_bytes_per_core = bytes(r.field("l2_bytes_per_core"));
  if (r.has("l3_bytes")) s.l3_bytes = bytes(r.field("l3_bytes"));
  if (r.has("dies")) {
    const Reader dies = r.field("dies");
    dies.expect_array("a list of dies (compute tiles or CCDs)");
    for (std::size_t i = 0; i < dies.size(); ++i) s.dies.push_back(read_die(dies.element(i)));
  }
  s.memory = read_memory(r.field("memory"));
  if (r.has("hbm")) s.hbm = read_hbm(r.field("hbm"));
  return s;
}

SpecVendor vendor(const Reader& r) {
  const std::string v = r.string(true);
  if (v == "intel") return SpecVendor::kIntel;
  if (v == "amd") return SpecVendor::kAmd;
  if (v == "nvidia") return SpecVendor::kNvidia;
  r.fail("expected intel, amd or nvidia, got \"" + v + "\"");
}

std::map<std::string, std::string> read_sources(const Reader& r) {
  r.expect_object("sources by JSON pointer {\"/socket/cores\": \"where it comes from\"}");
  std::map<std::string, std::string> out;
  for (const auto& item : r.json().items()) {
    if (item.key().empty() || item.key()[0] != '/') {
      r.fail("expected JSON pointers as keys (starting with \"/\"), got \"" + item.key() + "\"");
    }
    if (!item.value().is_string() || item.value().get<std::string>().empty()) {
      r.fail("expected a non-empty string as the source of \"" + item.key() + "\"");
    }
    out[item.key()] = item.value().get<std::string>();
  }
  return out;
}

SpecSheet read_document(const Json& document, const std::string& source_name) {
  const Reader root(document, "", source_name);
  if (!document.is_object()) root.fail(std::string("expected a spec sheet object, found ") + json_type_name(document));
  root.allow_only({"format", "format_version", "name", "description", "vendor", "sockets", "socket", "mode",
                   "hbm_mode", "socket_links", "cxl_devices", "accelerators", "snoop_mode", "sources"});
  if (root.field("format").string(true) != "numatwin-spec-sheet") {
    root.field("format").fail("expected \"numatwin-spec-sheet\"");
  }
  if (root.field("format_version").integer(std::numeric_limits<std::int64_t>::min(),
                                           std::numeric_limits<std::int64_t>::max()) != 1) {
    root.field("format_version").fail("expected format_version 1");
  }
  SpecSheet spec;
  spec.name = root.field("name").string(true);
  if (root.has("description")) spec.description = root.field("description").string(false);
  spec.vendor = vendor(root.field("vendor"));
  spec.sockets = count_in(root.field("sockets"), 1, 8);
  spec.socket = read_socket(root.field("socket"));
  try {
    spec.mode = parse_numa_mode(root.field("mode").string(true));
  } catch (const std::invalid_argument& e) {
    root.field("mode").fail(std::string("expected ") + e.what());
  }
  if (root.has("hbm_mode")) {
    const std::string m = root.field("hbm_mode").string(true);
    if (m != "flat" && m != "cache") root.field("hbm_mode").fail("expected flat or cache");
    spec.hbm_mode = m == "flat" ? HbmMode::kFlat : HbmMode::kCache;
  }
  if (root.has("socket_links")) spec.socket_links = read_link(root.field("socket_links"));
  if (root.has("cxl_devices")) {
    const Reader list = root.field("cxl_devices");
    list.expect_array("a list of CXL devices");
    for (std::size_t i = 0; i < list.size(); ++i) spec.cxl_devices.push_back(read_cxl(list.element(i)));
  }
  if (root.has("accelerators")) {
    const Reader list = root.field("accelerators");
    list.expect_array("a list of coherent accelerators");
    for (std::size_t i = 0; i < list.size(); ++i) spec.accelerators.push_back(read_accelerator(list.element(i)));
  }
  if (root.has("snoop_mode")) {
    spec.snoop_mode = root.field("snoop_mode").string(true);
    if (spec.snoop_mode != "directory" && spec.snoop_mode != "home-snoop" && spec.snoop_mode != "source-snoop") {
      root.field("snoop_mode").fail("expected directory, home-snoop or source-snoop");
    }
  }
  if (root.has("sources")) spec.sources = read_sources(root.field("sources"));
  if (const auto problem = check_spec_sheet(spec, spec.mode)) {
    throw InputError(source_name, problem->pointer, "expected " + problem->expectation);
  }
  return spec;
}

}  // namespace

SpecSheet parse_spec_sheet(std::string_view json_text, const std::string& source_name) {
  Json document;
  try {
    document = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::parse_error& e) {
    throw InputError(source_name, "", "not valid JSON (byte " + std::to_string(e.byte) + "): expected a spec sheet");
  } catch (const Json::exception& e) {
    throw InputError(source_name, "", std::string("unreadable JSON (") + e.what() + "): expected a spec sheet");
  }
  return read_document(document, source_name);
}

SpecSheet load_spec_sheet(const std::filesystem::path& path) {
  return parse_spec_sheet(read_input_file(path), path.string());
}

}  // namespace numatwin::model
