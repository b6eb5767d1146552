#include "numatwin/validate/measure/machine_measurement.hpp"

#include <numa.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <thread>

#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/measure/memory_kernels.hpp"
#include "numatwin/validate/host/memory_placement.hpp"

namespace numatwin::validate {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMiB = 1024 * 1024;
// A bandwidth point of several threads is quiet when each had its CPU at least this share of the
// wall time; it is measured until kRepeats attempts were quiet, at most kRepeats + kAttempts - 1
// times in all, and the median of the quiet ones is kept (one thread: once, or up to kAttempts
// times until quiet).
constexpr double kQuietCpuShare = 0.9;
constexpr int kAttempts = 3;
constexpr int kRepeats = 3;  // quiet attempts of a point of several threads (their median is kept)

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// CPU time of the calling thread: the figures divide by it rather than by wall time, so that
// time the thread spent descheduled (another process on a shared machine) does not count.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "unknown (cannot read " + path + ")";
  return line;
}

// "always [madvise] never" -> "madvise"
std::string bracketed(const std::string& line) {
  const auto open = line.find('[');
  const auto close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return line;
  return line.substr(open + 1, close - open - 1);
}

// Output of a shell command (stdout and stderr) and its exit status.
std::pair<std::string, int> run_command(const std::string& command) {
  std::FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {"cannot start: " + command, -1};
  std::string out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = pclose(pipe);
  return {out, status};
}

bool have_command(const std::string& name) { return run_command("command -v " + name + " >/dev/null").second == 0; }

std::string first_error_line(const std::string& output) {
  std::size_t at = 0;
  std::string fallback;
  while (at < output.size()) {
    const auto end = output.find('\n', at);
    std::string line = output.substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? output.size() : end + 1;
    if (line.find("annot") != std::string::npos || line.find("rror") != std::string::npos ||
        line.find("ermission") != std::string::npos || line.find("0 counters") != std::string::npos) {
      return line;
    }
    if (fallback.empty() && !line.empty() && line.find("----") == std::string::npos) fallback = line;
  }
  return fallback.empty() ? "no output" : fallback;
}

std::string likwid_counter_status() {
  if (!have_command("likwid-perfctr")) return "not measured: likwid-perfctr is not installed";
  const auto [output, status] = run_command("timeout 20 likwid-perfctr -c 0 -g MEM true");
  if (status != 0 || output.find("Cannot") != std::string::npos || output.find("0 counters") != std::string::npos) {
    return "not measured: likwid-perfctr cannot read hardware performance counters here (" + first_error_line(output) + ")";
  }
  return "not measured: likwid-perfctr works here, but numatwin does not yet read memory-volume counters during its runs";
}

std::optional<double> likwid_bench_load_gbps(int memory_domain, int threads, std::size_t bytes, double seconds,
                                             std::string& error) {
  const std::string command = "timeout 120 likwid-bench -t load -w M" + std::to_string(memory_domain) + ":" +
                              std::to_string(bytes / 1024) + "kB:" + std::to_string(threads) + " -s " +
                              std::to_string(std::max(1, static_cast<int>(std::lround(seconds))));
  const auto [output, status] = run_command(command);
  static const std::regex mbytes(R"(MByte/s:\s+([0-9.]+))");
  std::smatch match;
  if (status == 0 && std::regex_search(output, match, mbytes)) return std::stod(match[1].str()) / 1000.0;
  error = "likwid-bench failed (" + command + "): " + first_error_line(output);
  return std::nullopt;
}

Json pages_json(const PagePlacement& placement, int target) {
  Json per_node = Json::object();
  for (const auto& [node, count] : placement.pages_per_node) per_node[std::to_string(node)] = count;
  return Json{{"pages", placement.pages},
              {"per_node", per_node},
              {"not_present", placement.pages_not_present},
              {"fraction_on_memory_node", placement.fraction_on(target)}};
}

struct ThreadRecord {
  int cpu = -1;
  int cpu_start = -1;
  int cpu_end = -1;
  double bytes = 0.0;
  double seconds = 0.0;       // thread CPU time of the timed part
  double wall_seconds = 0.0;  // wall time of the timed part
  std::string error;
};

// The smallest share of its wall time a thread had a CPU: well below 1, other processes ran.
double cpu_share(const std::vector<ThreadRecord>& records) {
  double share = 1.0;
  for (const ThreadRecord& r : records) {
    if (r.wall_seconds > 0.0) share = std::min(share, r.seconds / r.wall_seconds);
  }
  return share;
}

Json threads_json(const std::vector<ThreadRecord>& records) {
  Json out = Json::array();
  for (const ThreadRecord& r : records) {
    out.push_back(Json{{"cpu", r.cpu},
                       {"cpu_start", r.cpu_start},
                       {"cpu_end", r.cpu_end},
                       {"node", node_of_cpu(r.cpu_end)},
                       {"cpu_seconds", r.seconds},
                       {"wall_seconds", r.wall_seconds}});
  }
  return out;
}

// Runs `work(thread index, record)` on one pinned thread per CPU, all started together.
void run_pinned(const ThreadPinner& pinner, const std::vector<int>& cpus, std::vector<ThreadRecord>& records,
                const std::function<void(std::size_t, ThreadRecord&)>& work) {
  records.assign(cpus.size(), ThreadRecord{});
  std::barrier sync(static_cast<std::ptrdiff_t>(cpus.size()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < cpus.size(); ++t) {
    threads.emplace_back([&, t] {
      ThreadRecord& record = records[t];
      record.cpu = cpus[t];
      try {
        pinner.pin_current_thread(cpus[t]);
      } catch (const std::exception& e) {
        record.error = e.what();
      }
      record.cpu_start = current_cpu();
      sync.arrive_and_wait();
      const auto wall_start = Clock::now();
      const double cpu_start = thread_cpu_seconds();
      if (record.error.empty()) work(t, record);
      record.seconds = thread_cpu_seconds() - cpu_start;
      record.wall_seconds = seconds_since(wall_start);
      record.cpu_end = current_cpu();
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const ThreadRecord& r : records) {
    if (!r.error.empty()) throw std::runtime_error(r.error);
  }
}

struct NodePlan {
  DiscoveredNode node;
  std::vector<int> cpus;  // placement order, allowed only
  std::int64_t llc_bytes = 0;
};

std::vector<int> thread_counts(int max_threads) {
  std::vector<int> counts;
  if (max_threads <= 8) {
    for (int t = 1; t <= max_threads; ++t) counts.push_back(t);
  } else {
    for (int t = 1; t < max_threads; t *= 2) counts.push_back(t);
    counts.push_back(max_threads);
  }
  return counts;
}

std::string bytes_text(std::size_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.0f MiB", static_cast<double>(bytes) / kMiB);
  return buffer;
}

}  // namespace

std::string iso_time_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

Json host_state() {
  Json host;
  utsname names{};
  if (uname(&names) == 0) {
    host["hostname"] = names.nodename;
    host["kernel"] = std::string(names.sysname) + " " + names.release + " " + names.version;
    host["architecture"] = names.machine;
  }
  host["thp_enabled"] = bracketed(read_first_line("/sys/kernel/mm/transparent_hugepage/enabled"));
  host["thp_defrag"] = bracketed(read_first_line("/sys/kernel/mm/transparent_hugepage/defrag"));
  const std::string balancing = read_first_line("/proc/sys/kernel/numa_balancing");
  host["numa_balancing"] = balancing == "0" ? "disabled" : balancing == "1" ? "enabled" : balancing;
  host["online_cpus"] = sysconf(_SC_NPROCESSORS_ONLN);
  return host;
}

Json measure_machine(const MeasureOptions& options) {
  if (numa_available() < 0) throw std::runtime_error("libnuma: the kernel offers no NUMA API (numa_available() < 0)");
  const double point_s = options.seconds_per_point > 0.0 ? options.seconds_per_point : (options.quick ? 0.05 : 1.0);
  const DiscoveredMachine machine = discover_machine();
  const ThreadPinner pinner;
  const auto started = Clock::now();

  Json report;
  report["format"] = "numatwin-measurements";
  report["format_version"] = 1;
  report["complete"] = false;
  report["interrupted"] = false;
  report["quick"] = options.quick;
  report["started_at"] = iso_time_now();
  Json host = host_state();
  host["machine"] = machine.description;
  host["hwloc_api"] = machine.hwloc_version;
  report["host"] = host;
  report["seconds_per_point"] = point_s;
  Json notes = Json::array();
  for (const std::string& note : machine.notes) notes.push_back(note);

  std::vector<NodePlan> cpu_nodes;
  std::vector<NodePlan> memory_nodes;
  Json nodes = Json::array();
  for (const DiscoveredNode& node : machine.nodes) {
    NodePlan plan;
    plan.node = node;
    plan.cpus = pinner.node_cpus(node.os_index);
    for (const auto& cache : node.caches) plan.llc_bytes = std::max(plan.llc_bytes, cache.size_bytes);
    long long free_bytes = 0;
    if (numa_node_size64(node.os_index, &free_bytes) >= 0) plan.node.free_memory_bytes = free_bytes;
    nodes.push_back(Json{{"os_index", node.os_index},
                         {"cores", node.cores},
                         {"hardware_threads", node.hardware_threads},
                         {"cpus_in_placement_order", plan.cpus},
                         {"memory_bytes", node.memory_bytes},
                         {"free_memory_bytes", plan.node.free_memory_bytes.value_or(0)},
                         {"memory_allowed", node.memory_allowed},
                         {"llc_bytes", plan.llc_bytes}});
    if (!plan.cpus.empty()) cpu_nodes.push_back(plan);
    if (node.memory_bytes > 0 && node.memory_allowed && plan.node.free_memory_bytes.value_or(0) > 0) memory_nodes.push_back(plan);
  }
  report["nodes"] = nodes;
  report["distances"] = machine.distances;
  if (cpu_nodes.empty()) throw std::runtime_error("no NUMA node has a CPU this process may run on");
  if (memory_nodes.empty()) throw std::runtime_error("no NUMA node has memory this process may allocate");

  // ── the plan ──
  struct Task {
    enum Kind { kBandwidth, kIdleLatency, kLoadedLatency } kind;
    std::size_t cpu = 0, memory = 0;  // indices into cpu_nodes / memory_nodes
    std::string kernel;
    int threads = 0;
    int delay = 0;
    std::string label;
  };
  const std::vector<int> delays = options.quick ? std::vector<int>{0, 400} : std::vector<int>{0, 20, 50, 100, 200, 400, 1000, 3000};
  std::vector<Task> tasks;
  for (std::size_t c = 0; c < cpu_nodes.size(); ++c) {
    for (std::size_t m = 0; m < memory_nodes.size(); ++m) {
      const std::string pair = "n" + std::to_string(cpu_nodes[c].node.os_index) + "->mem n" + std::to_string(memory_nodes[m].node.os_index);
      for (const std::string kernel : {"read", "write", "copy"}) {
        for (int t : thread_counts(static_cast<int>(cpu_nodes[c].cpus.size()))) {
          tasks.push_back(Task{Task::kBandwidth, c, m, kernel, t, 0, kernel + " " + pair + " " + std::to_string(t) + " thr"});
        }
      }
      tasks.push_back(Task{Task::kIdleLatency, c, m, "", 1, 0, "idle latency " + pair});
      if (cpu_nodes[c].node.os_index == memory_nodes[m].node.os_index && cpu_nodes[c].cpus.size() >= 2) {
        for (int d : delays) {
          tasks.push_back(Task{Task::kLoadedLatency, c, m, "", static_cast<int>(cpu_nodes[c].cpus.size()), d,
                               "loaded latency " + pair + " delay " + std::to_string(d)});
        }
      }
    }
  }
  for (const NodePlan& c : cpu_nodes) {
    if (c.cpus.size() < 2) notes.push_back("node " + std::to_string(c.node.os_index) + " has one usable CPU: no loaded latency");
  }
  if (!options.quick) notes.push_back("loaded latency is measured on local pairs only (like mlc --loaded_latency)");

  Json bandwidth = Json::array();
  Json idle = Json::array();
  Json loaded = Json::array();
  auto publish = [&] {
    report["bandwidth"] = bandwidth;
    report["idle_latency"] = idle;
    report["loaded_latency"] = loaded;
    report["notes"] = notes;
    report["elapsed_s"] = seconds_since(started);
  };
  publish();

  // Buffers live per pair and are reused by its tasks.
  std::size_t current_pair = static_cast<std::size_t>(-1);
  std::unique_ptr<NodeMemory> stream_buffer;
  std::unique_ptr<NodeMemory> chase_buffer;
  const void* chase_start = nullptr;
  Json stream_pages, chase_pages;

  auto cap_for = [&](const NodePlan& memory) {
    const double free_bytes = static_cast<double>(memory.node.free_memory_bytes.value_or(0));
    return static_cast<std::size_t>(free_bytes * options.memory_fraction) / kMiB * kMiB;
  };

  double task_seconds_done = 0.0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& task = tasks[i];
    if (options.stop != nullptr && options.stop->load()) {
      report["interrupted"] = true;
      break;
    }
    if (options.progress) {
      const double elapsed = seconds_since(started);
      const double per_task = i == 0 ? point_s * 1.5 : task_seconds_done / static_cast<double>(i);
      options.progress(MeasureProgress{static_cast<int>(i), static_cast<int>(tasks.size()), task.label, elapsed,
                                       per_task * static_cast<double>(tasks.size() - i)});
    }
    const auto task_start = Clock::now();
    const NodePlan& cpu = cpu_nodes[task.cpu];
    const NodePlan& memory = memory_nodes[task.memory];
    const int memory_os = memory.node.os_index;
    const std::size_t pair = task.cpu * memory_nodes.size() + task.memory;
    if (pair != current_pair) {
      current_pair = pair;
      stream_buffer.reset();
      chase_buffer.reset();
      const std::size_t threads = cpu.cpus.size();
      const std::size_t want_stream =
          options.quick ? threads * 8 * kMiB
                        : std::max<std::size_t>(2 * static_cast<std::size_t>(memory.llc_bytes), threads * 128 * kMiB);
      const std::size_t want_chase =
          options.quick ? 16 * kMiB : std::max<std::size_t>(4 * static_cast<std::size_t>(memory.llc_bytes), 256 * kMiB);
      const std::size_t cap = std::max<std::size_t>(cap_for(memory), 2 * kMiB * threads);
      const std::size_t stream_bytes = std::min(want_stream, cap) / (2 * threads * kCacheLineBytes) * (2 * threads * kCacheLineBytes);
      const std::size_t chase_bytes = std::min(want_chase, cap) / kCacheLineBytes * kCacheLineBytes;
      if (want_stream > cap || want_chase > cap) {
        notes.push_back("memory node " + std::to_string(memory_os) + ": buffers capped at " + bytes_text(cap) + " (" +
                        std::to_string(static_cast<int>(options.memory_fraction * 100)) + " % of its free memory)");
      }
      stream_buffer = std::make_unique<NodeMemory>(stream_bytes, MemoryPolicyKind::kBind, std::vector<int>{memory_os}, true);
      stream_buffer->touch();
      stream_pages = pages_json(page_placement(stream_buffer->data(), stream_buffer->bytes()), memory_os);
      chase_buffer = std::make_unique<NodeMemory>(chase_bytes, MemoryPolicyKind::kBind, std::vector<int>{memory_os}, true);
      chase_buffer->touch();
      chase_start = build_pointer_chase(chase_buffer->data(), chase_bytes / kCacheLineBytes,
                                        0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(memory_os));
      chase_pages = pages_json(page_placement(chase_buffer->data(), chase_buffer->bytes()), memory_os);
    }

    std::vector<ThreadRecord> records;
    if (task.kind == Task::kBandwidth) {
      const std::vector<int> cpus(cpu.cpus.begin(), cpu.cpus.begin() + task.threads);
      const std::size_t half = stream_buffer->bytes() / 2;
      const std::size_t slice = task.kernel == "copy" ? half / static_cast<std::size_t>(task.threads) / kCacheLineBytes * kCacheLineBytes
                                                      : stream_buffer->bytes() / static_cast<std::size_t>(task.threads) / kCacheLineBytes * kCacheLineBytes;
      std::byte* base = stream_buffer->data();
      const std::string kernel = task.kernel;
      std::vector<std::uint64_t> sinks(cpus.size(), 0);
      // One thread: bytes over its CPU time (the rate while it ran; time descheduled by another
      // process does not count). Several: their bytes over the common wall time, because they
      // share the memory only while they run together: per-thread CPU-time rates of threads that
      // took turns on a busy CPU add up to more than the memory gave them together (on this VM
      // with a competing process on one CPU, 2 threads read "43.7 GB/s" that way, 36 when quiet).
      // A point during which some thread had its CPU less than kQuietCpuShare of the time is
      // measured again. A point of several threads is measured until kRepeats attempts were
      // quiet (at most kRepeats + kAttempts - 1 attempts) and their median is kept: this VM's
      // two-reader bandwidth moved between about 35 and 69 GB/s from one run to the next with
      // both CPUs held (docs/validation.md), so one attempt can catch the rarer level. With no
      // quiet attempt, the quietest is kept.
      struct Attempt {
        double gbps = 0.0;
        double share = 0.0;
        std::vector<ThreadRecord> records;
      };
      const auto rate_of = [](const std::vector<ThreadRecord>& rs) {
        if (rs.size() == 1) return rs[0].bytes / rs[0].seconds / 1e9;
        double bytes = 0.0;
        double wall = 0.0;
        for (const ThreadRecord& r : rs) {
          bytes += r.bytes;
          wall = std::max(wall, r.wall_seconds);
        }
        return bytes / wall / 1e9;
      };
      const int wanted = task.threads == 1 ? 1 : kRepeats;
      std::vector<Attempt> tried;
      int quiet = 0;
      while (static_cast<int>(tried.size()) < wanted + kAttempts - 1 && quiet < wanted) {
        run_pinned(pinner, cpus, records, [&](std::size_t t, ThreadRecord& record) {
          const auto start = Clock::now();
          double bytes = 0.0;
          do {
            if (kernel == "read") {
              sinks[t] ^= read_stream(base + t * slice, slice);
              bytes += static_cast<double>(slice);
            } else if (kernel == "write") {
              write_stream(base + t * slice, slice, t + 1);
              bytes += static_cast<double>(slice);
            } else {
              copy_stream(base + half + t * slice, base + t * slice, slice);
              bytes += 2.0 * static_cast<double>(slice);
            }
          } while (seconds_since(start) < point_s);
          record.bytes = bytes;
        });
        tried.push_back(Attempt{rate_of(records), cpu_share(records), records});
        quiet += tried.back().share >= kQuietCpuShare || task.threads == 1 ? 1 : 0;
        if (task.threads == 1) break;
      }
      std::vector<const Attempt*> kept;
      for (const Attempt& a : tried)
        if (a.share >= kQuietCpuShare) kept.push_back(&a);
      if (kept.empty()) kept.push_back(&*std::max_element(tried.begin(), tried.end(),
                                                          [](const Attempt& a, const Attempt& b) { return a.share < b.share; }));
      std::sort(kept.begin(), kept.end(), [](const Attempt* a, const Attempt* b) { return a->gbps < b->gbps; });
      const Attempt& chosen = *kept[(kept.size() - 1) / 2];  // the median (the lower of two)
      records = chosen.records;
      const double gbps = chosen.gbps;
      const int attempts = static_cast<int>(tried.size());
      Json quiet_gbps = Json::array();
      for (const Attempt* a : kept) quiet_gbps.push_back(a->gbps);
      bandwidth.push_back(Json{{"kernel", task.kernel},
                               {"cpu_node", cpu.node.os_index},
                               {"memory_node", memory_os},
                               {"threads", task.threads},
                               {"bandwidth_gbps", gbps},
                               {"bytes_per_thread", slice},
                               {"checksum", sinks.empty() ? 0 : sinks[0] & 1},
                               {"cpu_share", cpu_share(records)},
                               {"attempts", attempts},
                               {"attempts_gbps", quiet_gbps},
                               {"threads_observed", threads_json(records)},
                               {"pages", stream_pages}});
    } else if (task.kind == Task::kIdleLatency) {
      const std::vector<int> cpus{cpu.cpus.front()};
      std::size_t steps = 0;
      const void* end = nullptr;
      run_pinned(pinner, cpus, records, [&](std::size_t, ThreadRecord&) {
        const void* p = chase_start;
        const auto start = Clock::now();
        do {
          p = chase_pointers(p, 1 << 16);
          steps += 1 << 16;
        } while (seconds_since(start) < point_s);
        end = p;
      });
      const double latency_ns = records[0].seconds * 1e9 / static_cast<double>(steps);
      const double ratio = memory.llc_bytes > 0 ? static_cast<double>(chase_buffer->bytes()) / static_cast<double>(memory.llc_bytes) : 0.0;
      Json point{{"cpu_node", cpu.node.os_index},
                 {"memory_node", memory_os},
                 {"latency_ns", latency_ns},
                 {"buffer_bytes", chase_buffer->bytes()},
                 {"llc_bytes", memory.llc_bytes},
                 {"buffer_to_llc_ratio", ratio},
                 {"steps", steps},
                 {"end", end == nullptr ? 0 : 1},
                 {"cpu_share", cpu_share(records)},
                 {"threads_observed", threads_json(records)},
                 {"pages", chase_pages}};
      if (ratio < 4.0) point["note"] = "buffer smaller than 4 x LLC: partly a cache latency, not a memory latency";
      idle.push_back(point);
    } else {
      const std::vector<int> cpus = cpu.cpus;
      const std::size_t readers = cpus.size() - 1;
      const std::size_t slice = stream_buffer->bytes() / readers / kCacheLineBytes * kCacheLineBytes;
      std::atomic<bool> chaser_done{false};
      std::size_t steps = 0;
      std::vector<std::uint64_t> sinks(cpus.size(), 0);
      const int delay = task.delay;
      std::byte* base = stream_buffer->data();
      run_pinned(pinner, cpus, records, [&](std::size_t t, ThreadRecord& record) {
        const auto start = Clock::now();
        if (t == 0) {
          const void* p = chase_start;
          do {
            p = chase_pointers(p, 1 << 14);
            steps += 1 << 14;
          } while (seconds_since(start) < point_s);
          record.bytes = static_cast<double>(steps * kCacheLineBytes);
          chaser_done = true;
          sinks[0] = reinterpret_cast<std::uintptr_t>(p) & 1;
        } else {
          double bytes = 0.0;
          const std::size_t chunk = std::min<std::size_t>(slice, 4 * kMiB);
          std::size_t offset = 0;
          while (!chaser_done.load(std::memory_order_relaxed)) {
            sinks[t] += read_stream_delayed(base + (t - 1) * slice + offset, chunk, delay);
            bytes += static_cast<double>(chunk);
            offset = offset + 2 * chunk <= slice ? offset + chunk : 0;
          }
          record.bytes = bytes;
        }
      });
      double load_gbps = 0.0;
      for (std::size_t t = 1; t < records.size(); ++t) load_gbps += records[t].bytes / records[t].seconds / 1e9;
      const double latency_ns = records[0].seconds * 1e9 / static_cast<double>(steps);
      loaded.push_back(Json{{"cpu_node", cpu.node.os_index},
                            {"memory_node", memory_os},
                            {"inject_delay", task.delay},
                            {"latency_ns", latency_ns},
                            {"load_threads", readers},
                            {"load_bandwidth_gbps", load_gbps},
                            {"total_bandwidth_gbps", load_gbps + records[0].bytes / records[0].seconds / 1e9},
                            {"cpu_share", cpu_share(records)},
                            {"threads_observed", threads_json(records)},
                            {"pages", stream_pages}});
    }
    task_seconds_done += seconds_since(task_start);
    publish();
    if (options.checkpoint) options.checkpoint(report);
  }
  stream_buffer.reset();
  chase_buffer.reset();

  // likwid: counters and the likwid-bench cross-check of the read bandwidth.
  Json likwid;
  likwid["counters"] = options.likwid ? likwid_counter_status() : "not measured: likwid disabled (--no-likwid)";
  Json bench = Json::array();
  const bool interrupted = report["interrupted"].get<bool>() || (options.stop != nullptr && options.stop->load());
  if (!options.likwid) {
    likwid["bench"] = "not run: likwid disabled (--no-likwid)";
  } else if (options.quick) {
    likwid["bench"] = "not run in --quick mode";
  } else if (interrupted) {
    likwid["bench"] = "not run: interrupted";
  } else if (!have_command("likwid-bench")) {
    likwid["bench"] = "not run: likwid-bench is not installed";
  } else {
    for (const Json& point : report["bandwidth"]) {
      if (point["kernel"] != "read" || point["cpu_node"] != point["memory_node"]) continue;
      if (options.stop != nullptr && options.stop->load()) break;
      const auto index = machine.node_with_os_index(point["memory_node"].get<int>());
      std::string error;
      const int threads = point["threads"].get<int>();
      const std::size_t bytes = point["bytes_per_thread"].get<std::size_t>() * static_cast<std::size_t>(threads);
      const auto gbps = likwid_bench_load_gbps(index.value_or(0), threads, bytes, point_s, error);
      Json row{{"memory_domain", "M" + std::to_string(index.value_or(0))},
               {"threads", threads},
               {"numatwin_read_gbps", point["bandwidth_gbps"]}};
      if (gbps) {
        row["likwid_bench_load_gbps"] = *gbps;
      } else {
        row["likwid_bench_load_gbps"] = nullptr;
        row["error"] = error;
      }
      bench.push_back(row);
    }
    likwid["bench"] = bench;
  }
  report["likwid"] = likwid;
  report["interrupted"] = interrupted;
  report["complete"] = !interrupted;
  report["finished_at"] = iso_time_now();
  publish();
  return report;
}

}  // namespace numatwin::validate
