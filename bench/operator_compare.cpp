// The numatwin side of bench/duckdb_compare.py: generates an operator's data with the
// validator's generators (operator_data.hpp), writes its columns as raw little-endian int64
// files for DuckDB, runs our kernel through run_operator_workload (radix-join: the hash-join spec
// with join_algorithm radix) with the given thread count (placement dense, first touch by the
// workers), one untimed warm-up then the median of --repetitions, verified against the reference,
// and prints one JSON object.
//
//   operator_compare --op count|median|hash-join|radix-join --records N [--build-records N]
//                    [--groups G] [--keys uniform] [--threads T] [--repetitions 3] [--dir DIR]
//                    [--huge-pages on|off]   (RunOptions::huge_pages: madvise(MADV_HUGEPAGE) or
//                    NOHUGEPAGE)
//
// Columns written to DIR (skipped when a file of the right size exists): input_key.bin,
// input_value.bin (aggregations); r_key.bin, r_value.bin, s_key.bin, s_value.bin (joins).
// JSON: op, threads, tuples, seconds, repetition_seconds, tuples_per_s, phases, checksum,
// verification (DuckDB's answer is checked against checksum and the match count in it), and
// cpu_seconds: process CPU time of one timed repetition (all workers), which stays meaningful
// when other processes share the CPUs. It is measured as the difference between this run and a
// second identical run with --repetitions - 2 (same generation, warm-up and verification),
// divided by 2; --cpu-time off skips the second run.
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/validate/kernels/operator_data.hpp"
#include "numatwin/validate/run/operator_run.hpp"
#include "this_machine.hpp"

namespace {

using numatwin::validate::Tuple;

struct Options {
  std::string op = "count";
  double records = 1e7;
  double build_records = 1e6;
  double groups = 1e6;
  std::string keys = "uniform";
  int threads = 1;
  int repetitions = 3;
  bool huge_pages = false;
  bool cpu_time = true;
  std::string dir;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument("missing value after " + a);
    const std::string v = argv[++i];
    if (a == "--op")
      o.op = v;
    else if (a == "--records")
      o.records = std::stod(v);
    else if (a == "--build-records")
      o.build_records = std::stod(v);
    else if (a == "--groups")
      o.groups = std::stod(v);
    else if (a == "--keys")
      o.keys = v;
    else if (a == "--threads")
      o.threads = std::stoi(v);
    else if (a == "--repetitions")
      o.repetitions = std::stoi(v);
    else if (a == "--dir")
      o.dir = v;
    else if (a == "--huge-pages")
      o.huge_pages = v == "1" || v == "on";
    else if (a == "--cpu-time")
      o.cpu_time = v == "1" || v == "on";
    else
      throw std::invalid_argument("unknown option " + a);
  }
  if (o.repetitions < 3) throw std::invalid_argument("--repetitions must be >= 3");
  if (o.op != "count" && o.op != "median" && o.op != "hash-join" && o.op != "radix-join")
    throw std::invalid_argument("--op must be count, median, hash-join or radix-join");
  return o;
}

// Writes the key and value columns of `rows` generated tuples.
template <typename Data>
void write_columns(const Data& data, std::uint64_t rows, const std::filesystem::path& key_file,
                   const std::filesystem::path& value_file) {
  const auto want = static_cast<std::uintmax_t>(rows * 8);
  if (std::filesystem::exists(key_file) && std::filesystem::file_size(key_file) == want &&
      std::filesystem::exists(value_file) && std::filesystem::file_size(value_file) == want)
    return;
  std::ofstream keys(key_file, std::ios::binary);
  std::ofstream values(value_file, std::ios::binary);
  constexpr std::uint64_t kBlock = 1 << 16;
  std::vector<Tuple> block(kBlock);
  std::vector<std::uint64_t> k(kBlock);
  std::vector<std::uint64_t> v(kBlock);
  for (std::uint64_t first = 0; first < rows; first += kBlock) {
    const std::uint64_t n = std::min(kBlock, rows - first);
    data.fill(first, {block.data(), n});
    for (std::uint64_t i = 0; i < n; ++i) {
      k[i] = block[i].key;
      v[i] = block[i].value;
    }
    keys.write(reinterpret_cast<const char*>(k.data()), static_cast<std::streamsize>(n * 8));
    values.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(n * 8));
  }
  if (!keys || !values)
    throw std::runtime_error("cannot write the columns to " + key_file.parent_path().string());
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  namespace nv = numatwin::validate;
  namespace sim = numatwin::sim;
  try {
    const Options o = parse(argc, argv);
    const numatwin::bench::ThisMachine machine = numatwin::bench::this_machine();
    sim::WorkloadSpec spec;
    const bool join = o.op == "hash-join" || o.op == "radix-join";
    spec.kind = o.op == "count"    ? sim::WorkloadKind::kCountAggregation
                : o.op == "median" ? sim::WorkloadKind::kMedianAggregation
                                   : sim::WorkloadKind::kHashJoin;
    spec.threads = o.threads;
    spec.placement.kind = o.threads > machine.topology.total_cores() ? sim::PlacementKind::kNone
                                                                     : sim::PlacementKind::kDense;
    spec.data.records = o.records;
    spec.data.build_records = o.build_records;
    spec.data.keys = sim::parse_key_distribution(o.keys, o.groups);
    spec.seed = 42;
    if (o.op == "radix-join") spec.join_algorithm = sim::JoinAlgorithm::kRadix;
    if (!o.dir.empty()) {
      const std::filesystem::path dir(o.dir);
      std::filesystem::create_directories(dir);
      if (join) {
        write_columns(nv::BuildData(spec), nv::build_rows(spec), dir / "r_key.bin",
                      dir / "r_value.bin");
        write_columns(nv::ProbeData(spec), nv::input_rows(spec), dir / "s_key.bin",
                      dir / "s_value.bin");
      } else {
        write_columns(nv::ProbeData(spec), nv::input_rows(spec), dir / "input_key.bin",
                      dir / "input_value.bin");
      }
    }
    nv::RunOptions options;
    options.repetitions = o.repetitions;
    options.huge_pages = o.huge_pages;
    const auto run_once = [&](const nv::RunOptions& with) {
      return nv::run_operator_workload(machine.topology, machine.host, spec, with);
    };
    const double cpu0 = process_cpu_seconds();
    const nv::RealRun run = run_once(options);
    const double cpu1 = process_cpu_seconds();
    double cpu_per_repetition = -1.0;
    if (o.cpu_time) {
      nv::RunOptions fewer = options;
      fewer.repetitions = options.repetitions - 2;
      run_once(fewer);
      cpu_per_repetition = ((cpu1 - cpu0) - (process_cpu_seconds() - cpu1)) / 2.0;
    }
    nlohmann::json out;
    out["op"] = o.op;
    out["threads"] = o.threads;
    out["tuples"] = run.work;
    out["seconds"] = run.seconds;
    out["repetition_seconds"] = run.repetition_seconds;
    out["tuples_per_s"] = run.work / run.seconds;
    for (const nv::PhaseTime& p : run.phases) out["phases"][p.name] = p.seconds;
    out["checksum"] = run.checksum;
    out["verified"] = run.verified;
    out["verification"] = run.verification;
    out["huge_pages"] = run.huge_pages;
    if (cpu_per_repetition >= 0.0) out["cpu_seconds"] = cpu_per_repetition;
    for (const nv::ThreadObservation& t : run.threads) out["cpus"].push_back(t.cpu_at_end);
    std::cout << out.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "operator_compare: " << e.what() << "\n";
    return 1;
  }
}
