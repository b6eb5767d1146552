#include "numatwin/validate/calibrate/calibration.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/calibrate/mlc_import.hpp"

namespace numatwin::validate {
namespace {

model::Topology fully_connected(int nodes, int cores_per_node, int threads_per_core, const std::string& name) {
  model::GeneratorParams params;
  params.family = model::TopologyFamily::kFullyConnected;
  params.nodes = nodes;
  params.cores_per_node = cores_per_node;
  params.threads_per_core = threads_per_core;
  params.name = name;
  return model::generate_topology(params);
}

// Two fully connected nodes of 8 single-threaded cores.
model::Topology two_nodes() { return fully_connected(2, 8, 1, "calibration-test"); }

model::Topology truth() {
  model::Topology t = two_nodes();
  for (model::Node& n : t.nodes) {
    n.memory_read_bandwidth_gbps = 25.0;
    n.local_latency_ns = 90.0;
    n.miss_buffers_per_core = 12;
  }
  for (model::Link& l : t.links) {
    l.bandwidth_gbps = 15.0;
    l.latency_ns = 50.0;
  }
  t.coherence.remote_access_overhead_ns = 0.0;
  t.coherence.probe_bytes_per_line = 0.0;
  t.performance.memory_queue_ns = 60.0;
  t.performance.link_queue_ns = 20.0;
  t.performance.queue_exponent = 3.0;
  return t;
}

// Read bandwidth at 1, 2, 4 and 8 threads for every pair (8 threads saturate the memory
// controller locally, 8 the link remotely), the idle latency matrix, and loaded latencies of a
// local chaser under 7 reading threads at several bandwidths up to the controller's 25 GB/s.
CalibrationData synthetic_data(const model::Topology& t) {
  CalibrationData data;
  data.source = "synthetic";
  for (int cpu = 0; cpu < 2; ++cpu) {
    for (int mem = 0; mem < 2; ++mem) {
      for (int threads : {1, 2, 4, 8}) {
        CalibrationPoint p;
        p.id = "bw-" + std::to_string(cpu) + std::to_string(mem) + "-" + std::to_string(threads);
        p.metric = CalibrationMetric::kReadBandwidthGbps;
        p.streams = {model::MeasurementStream{cpu, mem, threads}};
        data.points.push_back(p);
      }
      CalibrationPoint p;
      p.id = "lat-" + std::to_string(cpu) + std::to_string(mem);
      p.metric = CalibrationMetric::kIdleLatencyNs;
      p.chaser = model::MeasurementStream{cpu, mem, 1};
      data.points.push_back(p);
    }
  }
  for (double load : {3.0, 8.0, 13.0, 18.0, 21.0, 23.0, 24.5}) {
    CalibrationPoint p;
    p.id = "loaded-" + std::to_string(static_cast<int>(load));
    p.metric = CalibrationMetric::kLoadedLatencyNs;
    p.chaser = model::MeasurementStream{0, 0, 1};
    p.streams = {model::MeasurementStream{0, 0, 7}};
    p.load_bandwidth_gbps = load;
    p.value = 200.0;  // the chaser's own rate limit uses it; refined below
    data.points.push_back(p);
  }
  for (CalibrationPoint& p : data.points) {
    // A loaded latency point's chaser is limited by the measured latency: iterate to the
    // self-consistent value (the chaser's own traffic is tiny, two rounds settle it).
    for (int round = 0; round < 3; ++round) p.value = predict_point(t, p);
  }
  return data;
}

double value_of(const CalibrationResult& result, const std::string& pointer) {
  for (const FittedParameter& p : result.parameters) {
    if (p.pointer == pointer) return p.value;
  }
  ADD_FAILURE() << "no parameter " << pointer;
  return NAN;
}

TEST(CalibrationTest, RecoversKnownParametersFromSyntheticMeasurements) {
  const model::Topology known = truth();
  const CalibrationData data = synthetic_data(known);
  // The prior: the skeleton's placeholders, far from the truth.
  model::Topology prior = two_nodes();
  for (model::Node& n : prior.nodes) {
    n.memory_read_bandwidth_gbps = 10.0;
    n.local_latency_ns = 100.0;
    n.miss_buffers_per_core = 10;
  }
  for (model::Link& l : prior.links) {
    l.bandwidth_gbps = 10.0;
    l.latency_ns = 40.0;
  }
  prior.performance = model::PerformanceParameters{64, 50.0, 20.0, 4.0};
  const CalibrationResult result = calibrate(prior, data);
  SCOPED_TRACE(to_json(result).dump(1));
  EXPECT_TRUE(result.converged);
  EXPECT_LT(result.rms_relative_error, 2e-3);
  EXPECT_LT(result.max_abs_relative_error, 1e-2);
  EXPECT_NEAR(result.topology.nodes[0].memory_read_bandwidth_gbps, 25.0, 0.25);
  EXPECT_NEAR(result.topology.nodes[1].memory_read_bandwidth_gbps, 25.0, 0.25);
  EXPECT_NEAR(result.topology.nodes[0].local_latency_ns, 90.0, 0.5);
  EXPECT_EQ(result.topology.nodes[0].miss_buffers_per_core, 12);
  EXPECT_NEAR(result.topology.links[0].bandwidth_gbps, 15.0, 0.2);
  // Two nodes: the link latency and the remote overhead are only determined as a sum.
  EXPECT_NEAR(result.topology.links[0].latency_ns + result.topology.coherence.remote_access_overhead_ns, 50.0, 0.5);
  EXPECT_NEAR(value_of(result, "/performance/memory_queue_ns"), 60.0, 3.0);
  EXPECT_NEAR(value_of(result, "/performance/queue_exponent"), 3.0, 0.15);
  // The prior was far off: its residuals were large.
  double prior_worst = 0.0;
  for (const PointResidual& r : result.prior_residuals) prior_worst = std::max(prior_worst, std::abs(r.relative_error()));
  EXPECT_GT(prior_worst, 0.3);
  // The calibrated file holds the bandwidth and idle latency points and says what was fitted.
  EXPECT_EQ(result.topology.measurements.size(), 20u);
  EXPECT_NE(result.topology.provenance.notes.find("Calibrated"), std::string::npos);
  EXPECT_NO_THROW(model::parse_topology(model::topology_to_json_text(result.topology), "<calibrated>"));
}

TEST(CalibrationTest, UncertaintiesComeFromTheJacobianAndGrowWithNoise) {
  const model::Topology known = truth();
  CalibrationData data = synthetic_data(known);
  // Perturb every point by a deterministic +-2 %: the fit is no longer exact, so sd > 0.
  for (std::size_t i = 0; i < data.points.size(); ++i) data.points[i].value *= i % 2 == 0 ? 1.02 : 0.98;
  const CalibrationResult result = calibrate(two_nodes(), data);
  EXPECT_GT(result.rms_relative_error, 0.005);
  for (const FittedParameter& p : result.parameters) {
    if (p.pointer == "/nodes/0/memory_read_bandwidth_gbps") {
      EXPECT_TRUE(p.fitted);
      EXPECT_GT(p.std_error, 0.0);
      EXPECT_LT(p.std_error, 5.0);
    }
  }
}

// This VM's own `validate measure` points (2026-11-26 22:55 UTC, one node, 2 vCPUs): one reader
// at 29.69 GB/s (the two-reader point ran with its threads 57 % of the time and is left out),
// idle latency 170.0 ns, eight loaded latencies of one chaser beside one loader at 0.08-31.4 GB/s.
// No point loads the memory controller beyond what one core's miss buffers give, so the data say
// only that the capacity is at least about the one reader's 29.69 GB/s (below that it would cap
// the point); above it the capacity and the memory queue trade off. Before, the calibration listed
// this capacity as measured (313.6 GB/s, wherever its stage stopped; 37 to 654 GB/s in the suites
// of 2026-11-26/27). It must say it is not determined, give the lower bound, and keep it a
// placeholder.
TEST(CalibrationTest, ACapacityThatNoPointLoadsIsBoundedBelowAndStaysAPlaceholder) {
  const nlohmann::ordered_json report = nlohmann::ordered_json::parse(R"({
    "format": "numatwin-measurements", "format_version": 1, "complete": true,
    "nodes": [{"os_index": 0}],
    "bandwidth": [{"kernel": "read", "cpu_node": 0, "memory_node": 0, "threads": 1, "bandwidth_gbps": 29.691, "cpu_share": 0.988}],
    "idle_latency": [{"cpu_node": 0, "memory_node": 0, "latency_ns": 169.967}],
    "loaded_latency": [
      {"cpu_node": 0, "memory_node": 0, "inject_delay": 0, "latency_ns": 227.164, "load_threads": 1, "load_bandwidth_gbps": 31.362},
      {"cpu_node": 0, "memory_node": 0, "inject_delay": 20, "latency_ns": 200.284, "load_threads": 1, "load_bandwidth_gbps": 10.94},
      {"cpu_node": 0, "memory_node": 0, "inject_delay": 50, "latency_ns": 214.44, "load_threads": 1, "load_bandwidth_gbps": 4.346},
      {"cpu_node": 0, "memory_node": 0, "inject_delay": 100, "latency_ns": 211.832, "load_threads": 1, "load_bandwidth_gbps": 2.247},
      {"cpu_node": 0, "memory_node": 0, "inject_delay": 200, "latency_ns": 193.492, "load_threads": 1, "load_bandwidth_gbps": 1.143},
      {"cpu_node": 0, "memory_node": 0, "inject_delay": 400, "latency_ns": 213.103, "load_threads": 1, "load_bandwidth_gbps": 0.57},
      {"cpu_node": 0, "memory_node": 0, "inject_delay": 1000, "latency_ns": 205.367, "load_threads": 1, "load_bandwidth_gbps": 0.227},
      {"cpu_node": 0, "memory_node": 0, "inject_delay": 3000, "latency_ns": 197.231, "load_threads": 1, "load_bandwidth_gbps": 0.077}]})");
  const model::Topology prior = fully_connected(1, 2, 1, "vm");
  const CalibrationData data = calibration_data_from_measurements(report, prior, "m.json");
  ASSERT_EQ(data.points.size(), 10u);
  const CalibrationResult result = calibrate(prior, data);
  SCOPED_TRACE(to_json(result).dump(1));
  bool seen = false;
  for (const FittedParameter& p : result.parameters) {
    if (p.pointer != "/nodes/0/memory_read_bandwidth_gbps") continue;
    seen = true;
    ASSERT_TRUE(p.fitted);
    EXPECT_FALSE(p.determined);
    EXPECT_GT(p.lower_bound, 0.9 * 29.691);
    EXPECT_LE(p.lower_bound, 29.691 * 1.001);
    EXPECT_LT(p.upper_bound, 0.0);  // no upper bound within a factor 64
    EXPECT_LT(p.std_error, 0.0);
    EXPECT_NE(p.note.find("not determined"), std::string::npos);
  }
  EXPECT_TRUE(seen);
  const auto& measured = result.topology.provenance.measured;
  EXPECT_EQ(std::find(measured.begin(), measured.end(), "/nodes/0/memory_read_bandwidth_gbps"), measured.end());
  EXPECT_NE(result.topology.provenance.notes.find("Fitted but not determined by the data"), std::string::npos);
  // The synthetic data of the first test load the controllers: there every capacity is determined.
  const CalibrationResult full = calibrate(two_nodes(), synthetic_data(truth()));
  for (const FittedParameter& p : full.parameters) {
    if (p.pointer.find("memory_read_bandwidth_gbps") != std::string::npos) {
      EXPECT_TRUE(p.determined) << p.pointer;
    }
  }
}

TEST(CalibrationTest, ShippedMlcFileGivesATopologyThatLoads) {
  const MlcResults mlc =
      load_mlc_output(std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/mlc/skx-2x8180-mlc-v3.5.txt");
  const model::Topology prior = fully_connected(2, 28, 2, "skx-2x8180");
  CalibrationData data = calibration_data_from_mlc(mlc, prior);
  // 4 bandwidths, 4 latencies, the peak injection and 19 loaded latencies.
  EXPECT_EQ(data.points.size(), 28u);
  // The sanitizer build is slow: keep 4 of the loaded latencies (idle to saturated).
  std::erase_if(data.points, [](const CalibrationPoint& p) {
    return p.metric == CalibrationMetric::kLoadedLatencyNs && p.id != "mlc-loaded-latency-0" &&
           p.id != "mlc-loaded-latency-200" && p.id != "mlc-loaded-latency-1000" && p.id != "mlc-loaded-latency-20000";
  });
  ASSERT_EQ(data.points.size(), 13u);
  CalibrationOptions options;
  options.max_iterations = 20;
  const CalibrationResult result = calibrate(prior, data, options);
  const model::Topology loaded = model::parse_topology(model::topology_to_json_text(result.topology), "<calibrated>");
  EXPECT_EQ(loaded.measurements.size(), 9u);
  EXPECT_NE(loaded.provenance.source.find("mlc v3.5"), std::string::npos);
  // The bandwidths and idle latencies are reproduced within 10 %, the whole fit within 10 % rms.
  for (const PointResidual& r : result.residuals) {
    if (r.metric != CalibrationMetric::kLoadedLatencyNs) {
      EXPECT_LT(std::abs(r.relative_error()), 0.10) << r.id;
    }
  }
  EXPECT_LT(result.rms_relative_error, 0.10);
}

TEST(CalibrationTest, ShippedMlcLoadedLatencyIsPredictedFromItsMatricesAlone) {
  // Leave mlc's loaded-latency sweep out, calibrate on the matrices and the peak injection, then
  // predict the 19 points of the sweep. The prior's cores keep 16 lines in flight when streaming:
  // the L2 superqueue of a Skylake core (Intel's optimization manual), a fact about the core, not
  // read off this file (the sweep's own delay-0 point implies 215.7 GB/s x 282.7 ns / 64 B / 56
  // cores = 17 lines per core, which this test does not use).
  const MlcResults mlc =
      load_mlc_output(std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/mlc/skx-2x8180-mlc-v3.5.txt");
  model::GeneratorParams params;
  params.family = model::TopologyFamily::kFullyConnected;
  params.nodes = 2;
  params.cores_per_node = 28;
  params.threads_per_core = 2;
  params.miss_buffers_per_core = 16;
  params.name = "skx-2x8180";
  const model::Topology prior = model::generate_topology(params);
  const CalibrationData all = calibration_data_from_mlc(mlc, prior);
  CalibrationData matrices = all;
  std::erase_if(matrices.points, [](const CalibrationPoint& p) { return p.metric == CalibrationMetric::kLoadedLatencyNs; });
  ASSERT_EQ(matrices.points.size(), 9u);
  CalibrationOptions options;
  options.max_iterations = 20;
  const CalibrationResult result = calibrate(prior, matrices, options);
  // Q_mem by Little's law per node, 28 x 16 x 64 B / C - L0: node 0 28672 / 107.9477 - 81.4 =
  // 184.21 ns, node 1 28672 / 108.1834 - 81.3 = 183.73 ns; their mean 183.97 ns.
  EXPECT_NEAR(result.topology.performance.memory_queue_ns, 183.97, 0.01);
  int points = 0;
  for (const CalibrationPoint& p : all.points) {
    if (p.metric != CalibrationMetric::kLoadedLatencyNs) continue;
    ++points;
    const double predicted = predict_point(result.topology, p);
    EXPECT_LT(std::abs(predicted - p.value) / p.value, 0.15) << p.id << ": measured " << p.value << " ns, predicted " << predicted;
  }
  EXPECT_EQ(points, 19);
}

TEST(CalibrationTest, MlcDataThatDoesNotFitTheTopologyIsAnInputError) {
  MlcResults mlc;
  mlc.file = "three.txt";
  mlc.bandwidth_nodes = {0, 1, 2};
  mlc.bandwidth_cpu_nodes = {0, 1, 2};
  mlc.bandwidth_matrix_gbps = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
  try {
    calibration_data_from_mlc(mlc, two_nodes());
    FAIL() << "expected an InputError";
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.file(), "three.txt");
    EXPECT_NE(std::string(e.what()).find("found node 2"), std::string::npos) << e.what();
  }
}

TEST(CalibrationTest, MeasurementReportsAreReadAndCheckedWithPointers) {
  const nlohmann::ordered_json report = nlohmann::ordered_json::parse(R"({
    "format": "numatwin-measurements", "format_version": 1, "complete": true,
    "nodes": [{"os_index": 0}, {"os_index": 1}],
    "bandwidth": [{"kernel": "read", "cpu_node": 0, "memory_node": 1, "threads": 2, "bandwidth_gbps": 9.5},
                  {"kernel": "write", "cpu_node": 0, "memory_node": 1, "threads": 2, "bandwidth_gbps": 4.0}],
    "idle_latency": [{"cpu_node": 1, "memory_node": 0, "latency_ns": 140}],
    "loaded_latency": [{"cpu_node": 0, "memory_node": 0, "inject_delay": 0, "latency_ns": 180,
                        "load_threads": 3, "load_bandwidth_gbps": 30}]})");
  const CalibrationData data = calibration_data_from_measurements(report, two_nodes(), "m.json");
  ASSERT_EQ(data.points.size(), 3u);  // the write point is not a model metric
  EXPECT_EQ(data.points[0].streams[0].memory_node, 1);
  EXPECT_EQ(data.points[0].streams[0].threads, 2);
  EXPECT_EQ(data.points[1].chaser.cpu_node, 1);
  EXPECT_DOUBLE_EQ(data.points[2].load_bandwidth_gbps, 30.0);

  nlohmann::ordered_json bad = report;
  bad["idle_latency"][0]["memory_node"] = 7;
  try {
    calibration_data_from_measurements(bad, two_nodes(), "m.json");
    FAIL() << "expected an InputError";
  } catch (const model::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "m.json: /idle_latency/0/memory_node: expected a node listed in /nodes, found 7");
  }
  EXPECT_THROW(calibration_data_from_measurements(nlohmann::ordered_json::object(), two_nodes(), "x.json"), model::InputError);
}

// Two threads that took turns on a busy CPU (cpu_share 0.5) did not read together: the point is
// left out and named; one thread's rate (its CPU time) and quiet multi-thread points stay.
TEST(CalibrationTest, MultiThreadPointsWhoseThreadsDidNotRunTogetherAreLeftOutAndNamed) {
  const nlohmann::ordered_json report = nlohmann::ordered_json::parse(R"({
    "format": "numatwin-measurements", "format_version": 1, "complete": true,
    "nodes": [{"os_index": 0}, {"os_index": 1}],
    "bandwidth": [{"kernel": "read", "cpu_node": 0, "memory_node": 0, "threads": 1, "bandwidth_gbps": 29.0, "cpu_share": 0.5},
                  {"kernel": "read", "cpu_node": 0, "memory_node": 0, "threads": 2, "bandwidth_gbps": 49.1, "cpu_share": 0.502},
                  {"kernel": "read", "cpu_node": 0, "memory_node": 1, "threads": 2, "bandwidth_gbps": 9.5, "cpu_share": 0.97}]})");
  const CalibrationData data = calibration_data_from_measurements(report, two_nodes(), "m.json");
  ASSERT_EQ(data.points.size(), 2u);
  EXPECT_EQ(data.points[0].id, "read-s0-s0-1");
  EXPECT_EQ(data.points[1].id, "read-s0-s1-2");
  bool named = false;
  for (const std::string& note : data.notes) {
    named = named || (note.find("read-s0-s0-2 left out") != std::string::npos && note.find("50 %") != std::string::npos &&
                      note.find("/bandwidth/1") != std::string::npos);
  }
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace numatwin::validate
