#include "options/workload_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/sim/search/migration_schedule.hpp"
#include "numatwin/sim/search/scheduled_orders.hpp"
#include "numatwin/sim/schedule/shuffle_schedule.hpp"

namespace numatwin::cli {


void WorkloadOptions::add_common(CLI::App* app) {
    app->add_option("--topology", topology, "Bundled machine name or topology file")->required();
    app->add_option("--placement", placement, "dense, sparse or a CPU list such as 0-7,16-23")->capture_default_str();
    app->add_option("--bytes", bytes, "Bytes shuffled in all (threads^2 pieces)")->capture_default_str();
    app->add_option("--element-bytes", element_bytes, "Bytes per element")->capture_default_str();
    app->add_option("--cycles-per-element", cycles_per_element, "Consumer work per element (a mean: 1 add)")->capture_default_str();
    app->add_option("--state-bytes", state_bytes, "Migration: the thread's working state")->capture_default_str();
    app->add_option("--migration-overhead-s", migration_overhead_s, "Migration: time to re-bind a thread")->capture_default_str();
    app->add_option("--seed", seed, "Seed of random orders and random/none thread placement")->capture_default_str();
    app->add_option("--memory-policy", memory_policy,
                    "first-touch[:workers|:loader], localalloc, interleave[:nodes], preferred:node, bind:nodes")
        ->capture_default_str();
    app->add_option("--strategy", strategy, "partitioned-aggregation: shuffle, migration or migration-copy")->capture_default_str();
    app->add_option("--join-algorithm", join_algorithm, "hash-join: non-partitioned (shared table) or radix (partitioned first)")
        ->capture_default_str();
    app->add_option("--allocation", allocation,
                    "median: preallocated or per-group (each group's values grown through malloc/realloc); hash-join: "
                    "preallocated or per-bucket (overflow nodes from malloc)")
        ->capture_default_str();
    app->add_option("--sort-merge-phases", sort_merge_phases,
                    "sort-merge-join: merge (phase 4 only, runs prebuilt) or all (sort facts, partition R, gather and "
                    "sort R's runs, merge)")
        ->capture_default_str();
    app->add_option("--records", records, "Operators: input / probe-side (S) / fact tuples")->capture_default_str();
    app->add_option("--build-records", build_records, "Joins: build-side (R) / dimension tuples")->capture_default_str();
    app->add_option("--tuple-bytes", tuple_bytes, "Operators: bytes per tuple")->capture_default_str();
    app->add_option("--groups", groups, "Operators: distinct keys (groups)")->capture_default_str();
    app->add_option("--chunks", chunks, "subarray: chunks the array is cut into (--records cells of --element-bytes)")
        ->capture_default_str();
    app->add_option("--threads-per-chunk", threads_per_chunk, "subarray: threads that filter one chunk together (a chunk group)")
        ->capture_default_str();
    app->add_option("--selectivity", selectivity, "subarray: share of the cells the range predicate selects, 0..1")->capture_default_str();
    app->add_option("--keys", keys, "Key distribution: uniform, zipf[:s], heavy-hitter[:share], moving-cluster[:window], sequential")
        ->capture_default_str();
    app->add_option("--os-move-probability", os_move_probability, "--placement none: chance the OS moves a thread per unit of work")
        ->capture_default_str();
    // One option per operator cost (model/operator_costs.hpp): --scan-cycles-per-tuple, ...; a cost
    // not given is the machine's figure (its topology file), or the model's default.
    const auto table = model::operator_cost_table();
    given_costs.assign(table.size(), std::nullopt);
    for (std::size_t i = 0; i < table.size(); ++i) {
      std::string flag = "--" + std::string(table[i].name);
      std::replace(flag.begin(), flag.end(), '_', '-');
      app->add_option(flag, given_costs[i],
                      std::string(table[i].meaning) + ", " + std::string(table[i].unit) + " (default: the machine's figure)");
    }
  }
void WorkloadOptions::add_algorithm(CLI::App* app) {
    app->add_option("--workload", workload, "shuffle, migration or migration-copy")->capture_default_str();
    app->add_option("--algorithm", algorithm,
                    "naive, ring, random or scheduled (the order numatwin designs for the machine and placement; `numatwin schedule` shows it)")
        ->capture_default_str();
    app->add_option("--sync", sync, "tight (barrier per step) or loose")->capture_default_str();
  }

void WorkloadOptions::add_allocator(CLI::App* app) {
  app->add_option("--allocator", allocator,
                  "With --allocation per-group or per-bucket: whose malloc/free costs the prediction uses (the topology's "
                  "/allocator_costs entry, else the model's defaults)")
      ->capture_default_str();
}

void WorkloadOptions::add_huge_pages(CLI::App* app) {
  app->add_option("--huge-pages", huge_pages,
                  "Pages of the operators' buffers: on (2 MiB for every buffer, as the kernels advise and the machine's "
                  "costs were measured), off (4 KiB pages), madvise (the placed datasets on 2 MiB, the allocator's heap on "
                  "4 KiB); random accesses add the TLB's page walks (the topology's /tlb, else defaults)")
      ->check(CLI::IsMember({"on", "off", "madvise"}))
      ->capture_default_str();
}

sim::WorkloadSpec WorkloadOptions::spec(const model::Topology& t, int thread_count) const {
    sim::WorkloadSpec s;
    s.kind = sim::parse_workload_kind(workload);
    s.algorithm = sim::parse_algorithm(algorithm);
    s.sync = sim::parse_sync(sync);
    s.threads = thread_count > 0 ? thread_count : t.total_cores();
    s.placement = sim::parse_placement(placement);
    s.total_bytes = bytes;
    s.element_bytes = element_bytes;
    s.cycles_per_element = cycles_per_element;
    s.state_bytes = state_bytes;
    s.migration_overhead_seconds = migration_overhead_s;
    s.seed = seed;
    s.placement.seed = seed;
    s.placement.os_move_probability = os_move_probability;
    s.memory = sim::parse_memory_policy(memory_policy, t);
    s.strategy = sim::parse_strategy(strategy);
    s.join_algorithm = sim::parse_join_algorithm(join_algorithm);
    s.allocation = sim::parse_allocation(allocation);
    s.allocator = allocator;
    if (const model::AllocatorCosts* a = model::find_allocator_costs(t.allocator_costs, allocator)) s.allocator_costs = *a;
    s.sort_merge_phases = sim::parse_sort_merge_phases(sort_merge_phases);
    const std::optional<model::HugePages> pages = model::parse_huge_pages(huge_pages);
    if (!pages) throw std::invalid_argument("--huge-pages " + huge_pages + ": expected on, off or madvise");
    s.huge_pages = *pages;
    s.data.records = records;
    s.data.build_records = build_records;
    s.data.tuple_bytes = tuple_bytes;
    s.data.keys = sim::parse_key_distribution(keys, groups);
    s.data.chunks = chunks;
    s.data.threads_per_chunk = threads_per_chunk;
    s.data.selectivity = selectivity;
    s.costs = sim::operator_costs_of(cost_basis(t));
    sim::check_sizes(s);  // before anything computes with the sizes
    // The scheduled order (sim/search/scheduled_orders.hpp, the same for the GUI and the suite); a
    // migration's bound is kept for predict to say which order and why.
    sim::ScheduledOrders orders = sim::scheduled_orders(t, s);
    if (!orders.producer_orders.empty()) s.producer_orders = std::move(orders.producer_orders);
    migration_bound = orders.migration_bound;
    return s;
  }

sim::CostBasis WorkloadOptions::cost_basis(const model::Topology& t) const {
  sim::CostBasis basis = sim::machine_cost_basis(t);
  const auto table = model::operator_cost_table();
  for (std::size_t i = 0; i < given_costs.size() && i < table.size(); ++i) {
    if (!given_costs[i]) continue;
    sim::BasisCost& c = basis.at(table[i].name);
    c.cost = model::CostValue{*given_costs[i], *given_costs[i], *given_costs[i], c.cost.origin, "given on the command line"};
    c.given = true;
  }
  return basis;
}

}  // namespace numatwin::cli
