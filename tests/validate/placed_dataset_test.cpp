// PlacedDataset on this machine: every policy the model knows puts a dataset's pages where it
// says; on node 0 (the first node with memory) first touch, the loader and bind all observe 100 %.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <vector>

#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "numatwin/validate/run/placed_dataset.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"
#include "this_machine.hpp"

namespace numatwin::validate {
namespace {

using test_support::ThisMachine;
using test_support::this_machine;

TEST(PlacedDatasetTest, ChunksCoverTheDatasetInOrder) {
  for (std::size_t elements : {1u, 7u, 100u, 4096u})
    for (int workers : {1, 2, 3, 5}) {
      std::size_t next = 0;
      for (int w = 0; w < workers; ++w) {
        const auto [begin, end] = PlacedDataset::chunk(elements, w, workers);
        EXPECT_EQ(begin, next);
        EXPECT_LE(begin, end);
        next = end;
      }
      EXPECT_EQ(next, elements);
    }
}

TEST(PlacedDatasetTest, FirstTouchLoaderAndBindPutEveryPageOnNodeZero) {
  const ThisMachine& m = this_machine();
  const std::vector<int>& cpus = m.host.node_cpus.front();
  ASSERT_FALSE(cpus.empty());
  const int linux_node = m.host.node_os_index.front();
  ThreadTeam team(std::vector<int>(cpus.begin(), cpus.begin() + std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(cpus.size()))));
  sim::MemoryPolicy workers;  // first touch by the workers
  sim::MemoryPolicy loader;
  loader.init = sim::InitThreads::kLoader;
  sim::MemoryPolicy bind;
  bind.kind = sim::MemoryPolicyKind::kBind;
  bind.nodes = {0};
  sim::MemoryPolicy interleave;
  interleave.kind = sim::MemoryPolicyKind::kInterleave;
  sim::MemoryPolicy local;
  local.kind = sim::MemoryPolicyKind::kLocalAlloc;
  const std::size_t elements = 64 * page_bytes() / 8 + 3;
  for (const auto& [name, policy] : std::vector<std::pair<const char*, sim::MemoryPolicy>>{
           {"first-touch:workers", workers}, {"first-touch:loader", loader}, {"bind:0", bind}, {"interleave", interleave},
           {"localalloc", local}}) {
    for (sim::DatasetKind kind : {sim::DatasetKind::kPartitioned, sim::DatasetKind::kShared, sim::DatasetKind::kPrivate}) {
      PlacedDataset data(name, elements, 8, kind, policy, m.host, false, WeightedInterleaveBy::kPages);
      std::vector<std::atomic<int>> writes(elements);
      std::set<int> writers;
      std::mutex mutex;
      data.initialise(team, [&](int w, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          data.as<std::uint64_t>()[i] = i;
          ++writes[i];
        }
        std::lock_guard lock(mutex);
        writers.insert(w);
      });
      for (const auto& wrote : writes) ASSERT_EQ(wrote.load(), 1) << name;  // every element written once
      const bool by_loader = std::string(name) == "first-touch:loader" ||
                             (std::string(name) == "localalloc" && kind == sim::DatasetKind::kShared);
      EXPECT_EQ(writers.size(), by_loader ? 1u : static_cast<std::size_t>(team.size())) << name;
      EXPECT_EQ(data.placement().pages_not_present, 0u) << name;
      if (m.host.memory_os_nodes.size() == 1 || std::string(name) != "interleave") {
        EXPECT_DOUBLE_EQ(data.placement().fraction_on(linux_node), 1.0) << name << ": " << data.placement().text();
      }
      EXPECT_EQ(data.bytes(), elements * 8);
    }
  }
}

TEST(PlacedDatasetTest, RejectsAPolicyNamingAMissingNodeAndAnEmptyDataset) {
  const ThisMachine& m = this_machine();
  sim::MemoryPolicy bind;
  bind.kind = sim::MemoryPolicyKind::kBind;
  bind.nodes = {static_cast<model::NodeIndex>(m.topology.nodes.size()) + 3};
  EXPECT_THROW(PlacedDataset("x", 10, 8, sim::DatasetKind::kShared, bind, m.host, false, WeightedInterleaveBy::kPages), std::invalid_argument);
  EXPECT_THROW(PlacedDataset("x", 0, 8, sim::DatasetKind::kShared, sim::MemoryPolicy{}, m.host, false, WeightedInterleaveBy::kPages), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
