#include "numatwin/validate/alloc/allocator_bench.hpp"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "numatwin/validate/kernels/allocator.hpp"
#include "numatwin/validate/kernels/data_generator.hpp"

namespace numatwin::validate {
namespace {

double status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::strtod(line.c_str() + field.size() + 1, nullptr);
  }
  return 0.0;
}

double seconds_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Object {
  unsigned char* data;
  std::size_t bytes;
};

}  // namespace

AllocatorBenchResult run_allocator_bench(const AllocatorBenchOptions& o) {
  if (o.threads < 1) throw std::invalid_argument("allocator benchmark: --threads must be >= 1");
  if (o.rounds < 1) throw std::invalid_argument("allocator benchmark: --rounds must be >= 1");
  if (o.min_object_bytes < 1 || o.min_object_bytes > o.max_object_bytes)
    throw std::invalid_argument("allocator benchmark: object sizes must satisfy 1 <= min <= max");
  if (o.bytes_per_thread < static_cast<double>(o.max_object_bytes))
    throw std::invalid_argument("allocator benchmark: bytes per thread must be at least the largest object");

  // Size classes 2^lo .. 2^hi with weights 1 / 2^c.
  const int lo = static_cast<int>(std::ceil(std::log2(static_cast<double>(o.min_object_bytes))));
  const int hi = static_cast<int>(std::floor(std::log2(static_cast<double>(o.max_object_bytes))));
  std::vector<double> cumulative;
  double total = 0.0;
  for (int c = lo; c <= hi; ++c) cumulative.push_back(total += std::ldexp(1.0, -c));
  for (double& x : cumulative) x /= total;

  const auto threads = static_cast<std::size_t>(o.threads);
  std::vector<std::vector<Object>> held(threads);
  std::vector<std::uint64_t> written(threads, 0), read(threads, 0);
  std::vector<double> objects(threads, 0.0);
  std::vector<char> out_of_memory(threads, 0);
  std::barrier sync(static_cast<std::ptrdiff_t>(threads) + 1);

  AllocatorBenchResult r;
  r.allocator = active_allocator();
  r.threads = o.threads;
  r.rounds = o.rounds;
  r.requested_peak_bytes = o.bytes_per_thread * o.threads;
  const double rss_before_kib = status_kib("VmRSS");

  auto worker = [&](std::size_t t) {
    std::uint64_t draw = 0;
    for (int round = 0; round < o.rounds; ++round) {
      sync.arrive_and_wait();  // start allocate-and-write
      double live = 0.0;
      std::vector<Object>& mine = held[t];
      while (live < o.bytes_per_thread) {
        const std::uint64_t bits = mix64(o.seed, (static_cast<std::uint64_t>(t) << 40) + draw++, 5);
        const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;
        const int c = lo + static_cast<int>(std::lower_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
        const std::size_t top = std::size_t{1} << std::min(c, hi);
        const std::size_t bottom = std::max<std::size_t>(o.min_object_bytes, top / 2 + 1);
        const std::size_t bytes = bottom + (bits & 0x7FF) % (top - bottom + 1);
        auto* data = static_cast<unsigned char*>(std::malloc(bytes));
        if (data == nullptr) {  // keep meeting the barriers; reported after the run
          out_of_memory[t] = 1;
          break;
        }
        const auto value = static_cast<unsigned char>(bits >> 56);
        std::memset(data, value, bytes);
        written[t] += static_cast<std::uint64_t>(value) * bytes;
        mine.push_back({data, bytes});
        live += static_cast<double>(bytes);
        objects[t] += 1.0;
      }
      sync.arrive_and_wait();  // end allocate-and-write
      sync.arrive_and_wait();  // start read-and-free: the next thread's objects
      std::vector<Object>& theirs = held[(t + 1) % threads];
      std::uint64_t sum = 0;
      for (const Object& obj : theirs) {
        std::uint64_t s = 0;
        for (std::size_t i = 0; i < obj.bytes; ++i) s += obj.data[i];
        sum += s;
        std::free(obj.data);
      }
      read[t] += sum;
      sync.arrive_and_wait();  // end read-and-free
      sync.arrive_and_wait();  // every list consumed before anyone clears
      theirs.clear();
      theirs.shrink_to_fit();
    }
  };

  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (int round = 0; round < o.rounds; ++round) {
    double phase_start = seconds_now();
    sync.arrive_and_wait();
    sync.arrive_and_wait();
    r.alloc_write_seconds += seconds_now() - phase_start;
    phase_start = seconds_now();
    sync.arrive_and_wait();
    sync.arrive_and_wait();
    r.read_free_seconds += seconds_now() - phase_start;
    sync.arrive_and_wait();
  }
  for (auto& p : pool) p.join();

  if (std::find(out_of_memory.begin(), out_of_memory.end(), 1) != out_of_memory.end())
    throw std::runtime_error("allocator benchmark: malloc returned no memory; use fewer bytes per thread");
  std::uint64_t w = 0, rd = 0;
  for (std::size_t t = 0; t < threads; ++t) {
    w += written[t];
    rd += read[t];
    r.objects += objects[t];
  }
  r.checksum = rd;
  r.verified = w == rd;
  r.peak_rss_bytes = std::max(0.0, status_kib("VmHWM") - rss_before_kib) * 1024.0;
  r.overhead = r.peak_rss_bytes / r.requested_peak_bytes;
  return r;
}

nlohmann::ordered_json to_json(const AllocatorBenchResult& r) {
  return {{"allocator", r.allocator},
          {"threads", r.threads},
          {"rounds", r.rounds},
          {"objects", r.objects},
          {"requested_peak_bytes", r.requested_peak_bytes},
          {"alloc_write_seconds", r.alloc_write_seconds},
          {"read_free_seconds", r.read_free_seconds},
          {"peak_rss_bytes", r.peak_rss_bytes},
          {"overhead", r.overhead},
          {"checksum", r.checksum},
          {"verified", r.verified}};
}

AllocatorBenchResult allocator_bench_from_json(const nlohmann::json& j) {
  AllocatorBenchResult r;
  r.allocator = j.at("allocator").get<std::string>();
  r.threads = j.at("threads").get<int>();
  r.rounds = j.at("rounds").get<int>();
  r.objects = j.at("objects").get<double>();
  r.requested_peak_bytes = j.at("requested_peak_bytes").get<double>();
  r.alloc_write_seconds = j.at("alloc_write_seconds").get<double>();
  r.read_free_seconds = j.at("read_free_seconds").get<double>();
  r.peak_rss_bytes = j.at("peak_rss_bytes").get<double>();
  r.overhead = j.at("overhead").get<double>();
  r.checksum = j.at("checksum").get<std::uint64_t>();
  r.verified = j.at("verified").get<bool>();
  return r;
}

}  // namespace numatwin::validate
