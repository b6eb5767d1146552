#include "workload_options.hpp"

#include <CLI/CLI.hpp>

#include "numatwin/sim/memory_policy.hpp"

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
    app->add_option("--records", records, "Operators: input / probe-side (S) / fact tuples")->capture_default_str();
    app->add_option("--build-records", build_records, "Joins: build-side (R) / dimension tuples")->capture_default_str();
    app->add_option("--tuple-bytes", tuple_bytes, "Operators: bytes per tuple")->capture_default_str();
    app->add_option("--groups", groups, "Operators: distinct keys (groups)")->capture_default_str();
    app->add_option("--keys", keys, "Key distribution: uniform, zipf[:s], heavy-hitter[:share], moving-cluster[:window], sequential")
        ->capture_default_str();
    app->add_option("--os-move-probability", os_move_probability, "--placement none: chance the OS moves a thread per unit of work")
        ->capture_default_str();
    app->add_option("--random-lines-in-flight", costs.random_lines_in_flight, "Independent misses of a hash/probe loop")->capture_default_str();
    app->add_option("--hash-cycles-per-tuple", costs.hash_cycles_per_tuple, "COUNT / MEDIAN: core cycles per table update")
        ->capture_default_str();
    app->add_option("--join-cycles-per-tuple", costs.join_cycles_per_tuple,
                    "Joins: core cycles per build or probe access (index join: per lookup)")
        ->capture_default_str();
    app->add_option("--group-cycles-per-tuple", costs.group_cycles_per_tuple,
                    "Partitioned aggregation: core cycles per private-table update")
        ->capture_default_str();
    app->add_option("--llc-hit-ns", costs.llc_hit_ns, "Latency of a random access that hits the LLC")->capture_default_str();
    app->add_option("--private-hit-ns", costs.private_hit_ns, "Latency of a random access that hits the core's own cache")
        ->capture_default_str();
    app->add_option("--partition-cycles-per-tuple", costs.partition_cycles_per_tuple,
                    "Radix join: core cycles to scatter one tuple to its partition")
        ->capture_default_str();
    app->add_option("--partition-join-cycles-per-tuple", costs.partition_join_cycles_per_tuple,
                    "Radix join: core cycles per build or probe access of a partition's cached table")
        ->capture_default_str();
    app->add_option("--atomic-update-ns", costs.atomic_update_ns,
                    "A locked read-modify-write on a table several workers update (CAS, fetch_add)")
        ->capture_default_str();
    app->add_option("--shared-line-transfer-ns", costs.shared_line_transfer_ns,
                    "An atomic update finding its line modified by another core (validate run measures it)")
        ->capture_default_str();
  }
void WorkloadOptions::add_algorithm(CLI::App* app) {
    app->add_option("--workload", workload, "shuffle, migration or migration-copy")->capture_default_str();
    app->add_option("--algorithm", algorithm, "naive, ring or random")->capture_default_str();
    app->add_option("--sync", sync, "tight (barrier per step) or loose")->capture_default_str();
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
    s.data.records = records;
    s.data.build_records = build_records;
    s.data.tuple_bytes = tuple_bytes;
    s.data.keys = sim::parse_key_distribution(keys, groups);
    s.costs = costs;
    return s;
  }

}  // namespace numatwin::cli
