#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/discover/hwloc_xml_check.hpp"

#include <hwloc.h>
#include <numa.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <stdexcept>
#include <tuple>

#include "numatwin/model/input_error.hpp"

namespace numatwin::validate {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* bitmap) const { hwloc_bitmap_free(bitmap); }
};
using BitmapPtr = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

std::vector<int> bitmap_indices(hwloc_const_bitmap_t bitmap) {
  std::vector<int> out;
  if (bitmap == nullptr || hwloc_bitmap_iszero(bitmap)) return out;
  if (hwloc_bitmap_weight(bitmap) < 0) return out;  // infinite
  unsigned index = 0;
  hwloc_bitmap_foreach_begin(index, bitmap) { out.push_back(static_cast<int>(index)); }
  hwloc_bitmap_foreach_end();
  return out;
}

std::optional<double> frequency_from_model_string(const std::string& model) {
  static const std::regex ghz(R"(([0-9]+(\.[0-9]+)?)\s*GHz)", std::regex::icase);
  std::smatch match;
  if (std::regex_search(model, match, ghz)) return std::stod(match[1].str());
  return std::nullopt;
}

const char* info(hwloc_obj_t object, const char* name) {
  return object == nullptr ? nullptr : hwloc_obj_get_info_by_name(object, name);
}

// hwloc 2 has MemCache objects; XML format 3 writes a memory-side cache as a cache with subtype
// "MemorySideCache" (64intel64-heteromem.xml), which hwloc 2 reads as an ordinary cache.
bool is_memory_side_cache(hwloc_obj_t object) {
  return object->type == HWLOC_OBJ_MEMCACHE || (object->subtype != nullptr && std::string(object->subtype) == "MemorySideCache");
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]) + (j > i ? "-" + std::to_string(cpus[j]) : "");
    i = j + 1;
  }
  return out;
}

// The memattr values of `target` (a NUMA node object): for each attribute, the value of the
// initiator nearest the node (smallest initiator cpuset meeting the node's cpuset; an object
// initiator counts with its cpuset), every value noted.
void read_memattrs(hwloc_topology_t topology, hwloc_obj_t target, DiscoveredNode& node) {
  struct Attribute {
    hwloc_memattr_id_t id;
    const char* name;
  };
  const Attribute attributes[] = {{HWLOC_MEMATTR_ID_BANDWIDTH, "Bandwidth"},         {HWLOC_MEMATTR_ID_READ_BANDWIDTH, "ReadBandwidth"},
                                  {HWLOC_MEMATTR_ID_WRITE_BANDWIDTH, "WriteBandwidth"}, {HWLOC_MEMATTR_ID_LATENCY, "Latency"},
                                  {HWLOC_MEMATTR_ID_READ_LATENCY, "ReadLatency"},     {HWLOC_MEMATTR_ID_WRITE_LATENCY, "WriteLatency"}};
  std::map<std::string, double> nearest;
  for (const Attribute& a : attributes) {
    unsigned count = 0;
    if (hwloc_memattr_get_initiators(topology, a.id, target, 0, &count, nullptr, nullptr) != 0 || count == 0) continue;
    std::vector<hwloc_location> initiators(count);
    std::vector<hwloc_uint64_t> values(count);
    if (hwloc_memattr_get_initiators(topology, a.id, target, 0, &count, initiators.data(), values.data()) != 0) continue;
    int best_weight = -1;
    for (unsigned k = 0; k < count; ++k) {
      hwloc_const_cpuset_t cpus = initiators[k].type == HWLOC_LOCATION_TYPE_CPUSET ? initiators[k].location.cpuset
                                  : initiators[k].location.object != nullptr ? initiators[k].location.object->cpuset
                                                                             : nullptr;
      if (cpus == nullptr) continue;
      node.memattr_notes.push_back(std::string(a.name) + " " + std::to_string(values[k]) + " from cpus " + cpu_list(bitmap_indices(cpus)));
      if (target->cpuset == nullptr || !hwloc_bitmap_intersects(cpus, target->cpuset)) continue;
      const int weight = hwloc_bitmap_weight(cpus);
      if (best_weight < 0 || weight < best_weight) {
        best_weight = weight;
        nearest[a.name] = static_cast<double>(values[k]);
      }
    }
  }
  auto pick = [&](const char* first, const char* second) -> std::optional<double> {
    if (auto it = nearest.find(first); it != nearest.end()) return it->second;
    if (second == nullptr) return std::nullopt;
    if (auto it = nearest.find(second); it != nearest.end()) return it->second;
    return std::nullopt;
  };
  node.read_bandwidth_mibps = pick("ReadBandwidth", "Bandwidth");
  node.write_bandwidth_mibps = pick("WriteBandwidth", nullptr);
  node.read_latency_ns = pick("ReadLatency", "Latency");
}

// Rank of a subtype for getting a shared CPU: DRAM-like first.
int subtype_rank(const std::string& subtype) { return subtype.empty() || subtype == "DRAM" ? 0 : 1; }

std::int64_t kib_info(hwloc_obj_t object, const char* name) {
  const char* value = hwloc_obj_get_info_by_name(object, name);
  if (value == nullptr) return 0;
  try {
    return static_cast<std::int64_t>(std::stoll(value)) * 1024;  // "262144KiB"
  } catch (const std::exception&) {
    return 0;
  }
}

std::vector<model::CacheLevel> caches_above(hwloc_topology_t topology, hwloc_obj_t pu) {
  std::vector<model::CacheLevel> caches;
  for (hwloc_obj_t parent = pu == nullptr ? nullptr : pu->parent; parent != nullptr; parent = parent->parent) {
    if (!hwloc_obj_type_is_dcache(parent->type) || parent->attr == nullptr) continue;
    if (is_memory_side_cache(parent)) continue;  // in front of memory, not a CPU cache
    model::CacheLevel cache;
    cache.level = static_cast<int>(parent->attr->cache.depth);
    cache.size_bytes = static_cast<std::int64_t>(parent->attr->cache.size);
    const int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topology, parent->cpuset, HWLOC_OBJ_CORE);
    cache.shared_by_cores = std::max(1, cores);
    if (cache.size_bytes > 0 && cache.level >= 1) caches.push_back(cache);
  }
  std::sort(caches.begin(), caches.end(), [](const auto& a, const auto& b) { return a.level < b.level; });
  return caches;
}

// Everything but the live-only parts (free memory, libnuma cross-checks, /proc).
DiscoveredMachine read_topology(hwloc_topology_t topology, const std::string& source) {
  DiscoveredMachine machine;
  machine.source = source;
  const unsigned version = hwloc_get_api_version();
  machine.hwloc_version = std::to_string(version >> 16) + "." + std::to_string((version >> 8) & 0xff) + "." +
                          std::to_string(version & 0xff);
  machine.packages = std::max(0, hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE));
  hwloc_obj_t root = hwloc_get_root_obj(topology);
  hwloc_obj_t package = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PACKAGE, 0);
  std::string cpu_model = info(package, "CPUModel") ? info(package, "CPUModel") : "";
  if (cpu_model.empty() && info(root, "CPUModel")) cpu_model = info(root, "CPUModel");
  while (!cpu_model.empty() && cpu_model.back() == ' ') cpu_model.pop_back();
  const char* product = info(root, "DMIProductName");
  machine.description = cpu_model;
  if (product != nullptr && *product != '\0') {
    machine.description += (machine.description.empty() ? "" : ", ") + std::string(product);
  }
  machine.frequency_ghz = frequency_from_model_string(cpu_model);

  hwloc_const_cpuset_t online = hwloc_topology_get_topology_cpuset(topology);
  hwloc_const_cpuset_t complete = hwloc_topology_get_complete_cpuset(topology);
  hwloc_const_cpuset_t allowed_cpus = hwloc_topology_get_allowed_cpuset(topology);
  hwloc_const_nodeset_t allowed_nodes = hwloc_topology_get_allowed_nodeset(topology);
  BitmapPtr offline(hwloc_bitmap_alloc());
  hwloc_bitmap_andnot(offline.get(), complete, online);
  machine.offline_cpus = bitmap_indices(offline.get());
  BitmapPtr disallowed(hwloc_bitmap_alloc());
  hwloc_bitmap_andnot(disallowed.get(), online, allowed_cpus);
  machine.disallowed_cpus = bitmap_indices(disallowed.get());

  const int node_count = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
  std::vector<hwloc_obj_t> node_objects;
  for (int i = 0; i < node_count; ++i) node_objects.push_back(hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i)));
  std::sort(node_objects.begin(), node_objects.end(), [](hwloc_obj_t a, hwloc_obj_t b) { return a->os_index < b->os_index; });
  for (hwloc_obj_t object : node_objects) {
    DiscoveredNode node;
    node.os_index = static_cast<int>(object->os_index);
    BitmapPtr cpus(hwloc_bitmap_alloc());
    hwloc_bitmap_and(cpus.get(), object->cpuset, online);
    node.cpus = bitmap_indices(cpus.get());
    BitmapPtr usable(hwloc_bitmap_alloc());
    hwloc_bitmap_and(usable.get(), cpus.get(), allowed_cpus);
    node.allowed_cpus = bitmap_indices(usable.get());
    node.memory_allowed = allowed_nodes == nullptr || hwloc_bitmap_isset(allowed_nodes, object->os_index) != 0;
    if (!node.memory_allowed) machine.disallowed_nodes.push_back(node.os_index);
    node.local_cpus = node.cpus;
    node.subtype = object->subtype == nullptr ? "" : object->subtype;
    if (hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_PACKAGE, object)) node.package = static_cast<int>(p->logical_index);
    for (hwloc_obj_t parent = object->parent; parent != nullptr && hwloc_bitmap_isequal(parent->cpuset, object->cpuset) != 0; parent = parent->parent) {
      if (is_memory_side_cache(parent) && parent->attr != nullptr && subtype_rank(node.subtype) == 0) {
        node.memory_side_cache_bytes = static_cast<std::int64_t>(parent->attr->cache.size);  // HBM does not cache itself
        break;
      }
    }
    read_memattrs(topology, object, node);
    node.memory_bytes = object->attr == nullptr ? 0 : static_cast<std::int64_t>(object->attr->numanode.local_memory);
    machine.nodes.push_back(node);
  }
  // Each CPU to one node (see DiscoveredNode): smallest cpuset, then DRAM-like, then OS index.
  std::map<int, std::size_t> owner;
  for (std::size_t i = 0; i < machine.nodes.size(); ++i) {
    for (int cpu : machine.nodes[i].local_cpus) {
      auto it = owner.find(cpu);
      if (it == owner.end()) {
        owner[cpu] = i;
        continue;
      }
      const DiscoveredNode& a = machine.nodes[i];
      const DiscoveredNode& b = machine.nodes[it->second];
      const auto key = [](const DiscoveredNode& n) { return std::make_tuple(n.local_cpus.size(), subtype_rank(n.subtype), n.os_index); };
      if (key(a) < key(b)) it->second = i;
    }
  }
  int shared_nodes = 0;
  for (std::size_t i = 0; i < machine.nodes.size(); ++i) {
    DiscoveredNode& node = machine.nodes[i];
    std::vector<int> own, own_allowed;
    for (int cpu : node.cpus) if (owner[cpu] == i) own.push_back(cpu);
    for (int cpu : node.allowed_cpus) if (owner[cpu] == i) own_allowed.push_back(cpu);
    if (own.size() != node.cpus.size()) ++shared_nodes;
    node.cpus = own;
    node.allowed_cpus = own_allowed;
    node.hardware_threads = static_cast<int>(node.cpus.size());
    BitmapPtr set(hwloc_bitmap_alloc());
    for (int cpu : node.cpus) hwloc_bitmap_set(set.get(), static_cast<unsigned>(cpu));
    node.cores = node.cpus.empty() ? 0 : hwloc_get_nbobjs_inside_cpuset_by_type(topology, set.get(), HWLOC_OBJ_CORE);
    if (node.cores <= 0) node.cores = node.hardware_threads;  // no core objects: one thread per core
    if (!node.cpus.empty()) {
      node.caches = caches_above(topology, hwloc_get_pu_obj_by_os_index(topology, static_cast<unsigned>(node.cpus.front())));
    }
  }
  if (shared_nodes > 0) {
    machine.notes.push_back(std::to_string(shared_nodes) + " NUMA node(s) share their CPUs with a nearer or DRAM node and are "
                            "counted CPU-less (each CPU is counted once)");
  }
  for (hwloc_obj_t dev = hwloc_get_next_osdev(topology, nullptr); dev != nullptr; dev = hwloc_get_next_osdev(topology, dev)) {
    if (dev->subtype == nullptr || std::string(dev->subtype) != "CXLMem") continue;
    CxlMemoryDevice device;
    device.name = dev->name == nullptr ? "" : dev->name;
    device.ram_bytes = kib_info(dev, "CXLRAMSize");
    device.pmem_bytes = kib_info(dev, "CXLPMEMSize");
    if (hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(topology, dev)) device.local_cpus = bitmap_indices(near->cpuset);
    machine.cxl_devices.push_back(device);
  }

  unsigned count = 1;
  hwloc_distances_s* distances = nullptr;
  if (hwloc_distances_get_by_name(topology, "NUMALatency", &count, &distances, 0) == 0 && count >= 1 &&
      distances != nullptr) {
    const unsigned n = distances->nbobjs;
    std::vector<std::vector<int>> matrix(machine.nodes.size(), std::vector<int>(machine.nodes.size(), -1));
    bool complete_matrix = n == machine.nodes.size();
    for (unsigned i = 0; i < n && complete_matrix; ++i) {
      for (unsigned j = 0; j < n; ++j) {
        const auto a = machine.node_with_os_index(static_cast<int>(distances->objs[i]->os_index));
        const auto b = machine.node_with_os_index(static_cast<int>(distances->objs[j]->os_index));
        if (!a || !b) {
          complete_matrix = false;
          break;
        }
        matrix[*a][*b] = static_cast<int>(distances->values[i * n + j]);
      }
    }
    hwloc_distances_release(topology, distances);
    if (complete_matrix) {
      machine.distances = matrix;
      machine.distances_source = "hwloc NUMALatency";
    } else {
      machine.notes.push_back("hwloc's NUMALatency matrix does not cover every NUMA node; distances left out");
    }
  } else if (distances != nullptr) {
    hwloc_distances_release(topology, distances);
  }
  if (machine.distances.empty()) {
    machine.distances_source = "none";
    if (machine.nodes.size() == 1) {
      machine.distances = {{10}};
      machine.distances_source = "implied (one node)";
    } else {
      machine.notes.push_back("no SLIT distance matrix in the source: the link graph cannot be inferred");
    }
  }
  if (!machine.offline_cpus.empty()) {
    machine.notes.push_back(std::to_string(machine.offline_cpus.size()) + " CPU(s) offline, left out of the nodes");
  }
  if (!machine.disallowed_cpus.empty() || !machine.disallowed_nodes.empty()) {
    machine.notes.push_back("this process is restricted (cgroup cpuset): " + std::to_string(machine.disallowed_cpus.size()) +
                            " CPU(s) and " + std::to_string(machine.disallowed_nodes.size()) +
                            " memory node(s) not allowed; the skeleton still describes the whole machine");
  }
  return machine;
}

TopologyPtr new_topology() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw std::runtime_error("hwloc: cannot initialise a topology");
  TopologyPtr topology(raw);
  hwloc_topology_set_flags(topology.get(), HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  hwloc_topology_set_io_types_filter(topology.get(), HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_type_filter(topology.get(), HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_ALL);  // memory-side caches
  return topology;
}

std::optional<double> proc_cpuinfo_ghz() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      try {
        return std::stod(line.substr(colon + 1)) / 1000.0;
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> DiscoveredMachine::node_with_os_index(int os_index) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].os_index == os_index) return static_cast<int>(i);
  }
  return std::nullopt;
}

DiscoveredMachine discover_machine() {
  TopologyPtr topology = new_topology();
  if (hwloc_topology_load(topology.get()) != 0) throw std::runtime_error("hwloc: cannot load this machine's topology");
  DiscoveredMachine machine = read_topology(topology.get(), "this machine");
  utsname names{};
  if (uname(&names) == 0) {
    machine.source = std::string("this machine (") + names.nodename + ", Linux " + names.release + ")";
  }
  if (!machine.frequency_ghz) machine.frequency_ghz = proc_cpuinfo_ghz();
  if (numa_available() < 0) {
    machine.notes.push_back("libnuma: the kernel offers no NUMA API (numa_available() < 0); placement cannot be checked");
    return machine;
  }
  for (DiscoveredNode& node : machine.nodes) {
    long long free_bytes = 0;
    if (numa_node_size64(node.os_index, &free_bytes) >= 0) node.free_memory_bytes = free_bytes;
  }
  // libnuma reads the same SLIT from sysfs; say so when hwloc and libnuma disagree.
  const std::size_t n = machine.nodes.size();
  std::vector<std::vector<int>> from_libnuma(n, std::vector<int>(n, 0));
  bool libnuma_has = true;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      from_libnuma[i][j] = numa_distance(machine.nodes[i].os_index, machine.nodes[j].os_index);
      if (from_libnuma[i][j] <= 0) libnuma_has = false;
    }
  }
  if (libnuma_has) {
    if (machine.distances_source == "none" || machine.distances_source == "implied (one node)") {
      machine.distances = from_libnuma;
      machine.distances_source = "libnuma";
    } else if (from_libnuma != machine.distances) {
      machine.notes.push_back("hwloc and libnuma report different distance matrices; hwloc's is used");
    }
  }
  return machine;
}

DiscoveredMachine import_hwloc_xml(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw model::InputError(path.string(), "", "cannot read the file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return import_hwloc_xml_text(std::move(text), path.string());
}

DiscoveredMachine import_hwloc_xml_text(std::string text, const std::string& file) {
  check_hwloc_xml_sets(text, file);  // what hwloc's reader would crash on
  // hwloc 2 reads XML format 2 only; format 3 exports (hwloc 3) differ in attributes that
  // hwloc 2 ignores, so they are read as format 2 and the note says so.
  std::string note;
  static const std::regex version_3(R"(<topology version="3\.[0-9]+">)");
  std::smatch match;
  if (std::regex_search(text, match, version_3)) {
    note = "the file is hwloc XML " + match.str().substr(19, 3) + ", read as format 2.0 (hwloc " +
           std::to_string(hwloc_get_api_version() >> 16) + " ignores the attributes it does not know)";
    text.replace(static_cast<std::size_t>(match.position()), static_cast<std::size_t>(match.length()),
                 "<topology version=\"2.0\">");
  }
  TopologyPtr topology = new_topology();
  hwloc_topology_set_type_filter(topology.get(), HWLOC_OBJ_OS_DEVICE, HWLOC_TYPE_FILTER_KEEP_ALL);  // CXL memory devices
  hwloc_topology_set_type_filter(topology.get(), HWLOC_OBJ_PCI_DEVICE, HWLOC_TYPE_FILTER_KEEP_ALL);
  hwloc_topology_set_type_filter(topology.get(), HWLOC_OBJ_BRIDGE, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (hwloc_topology_set_xmlbuffer(topology.get(), text.c_str(), static_cast<int>(text.size()) + 1) != 0 ||
      hwloc_topology_load(topology.get()) != 0) {
    throw model::InputError(file, "", "expected an hwloc XML export (lstopo --of xml), hwloc cannot read it");
  }
  DiscoveredMachine machine = read_topology(topology.get(), file);
  if (!note.empty()) machine.notes.insert(machine.notes.begin(), note);
  return machine;
}

}  // namespace numatwin::validate
