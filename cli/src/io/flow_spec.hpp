// The flows of `numatwin flows`: one-line specs (--flow) or a JSON file (--flows-file), turned
// into sim::Flow with their threads pinned. Grammar (README.md, "Any set of flows"):
//
//   SPEC    := PART (',' PART)*            PART := KEY '=' VALUE
//   cpus=CPUSET                            required: where the flow's threads run
//   read=MEMORY | write=MEMORY             one of them, both (a copy), or copy=MEMORY '>' MEMORY
//   bytes=NUMBER                           the flow's payload (> 0); without it the flow never ends
//   rate-gbps=NUMBER                       cap on the flow's total rate (> 0)
//   lines-in-flight=NUMBER                 misses each thread keeps in flight (> 0; random access)
//   CPUSET  := CPUITEM ('+' CPUITEM)*      CPUITEM := NODE ':' COUNT | NODE | CPU | CPU '-' CPU
//   MEMORY  := 'interleave' | ['interleave:'] MEMITEM ('+' MEMITEM)*    MEMITEM := NODE [':' WEIGHT]
//
// NODE:COUNT takes the node's next free hardware threads in Linux order (first thread of every
// core, then the siblings); NODE alone is one thread on each of its cores; CPU ids are Linux's
// (thread_placement.hpp). No hardware thread runs two flow threads. Weights are relative (s0:3+s1:1
// puts 75 % of the accesses on s0); 'interleave' alone spreads evenly over every node with memory.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/engine/flows.hpp"

namespace numatwin::cli {

// A flow as the user wrote it, before its names are resolved against the machine.
struct FlowRequest {
  std::optional<std::string> cpus, read, write, copy;
  std::optional<double> bytes, rate_gbps, lines_in_flight;
};

// A resolved flow, with the texts to print.
struct ResolvedFlow {
  sim::Flow flow;
  std::vector<int> cpu_ids;  // per thread
  std::string cpus_text;     // as written
  std::string access_text;   // "read s2", "write s3", "copy s1>s3"
};

// Parses one --flow value. `index` is 1-based (the n-th --flow); errors are
// std::invalid_argument("--flow N: 'PART': what is wrong").
FlowRequest parse_flow_spec(const std::string& spec, int index);

// Reads a flows file: {"flows": [{"cpus": "s0:4", "read": "s2", "bytes": 1e9}, ...]}; keys as in
// the spec with '_' for '-'. Throws model::InputError naming the file and the JSON pointer.
// Resolves the flows too (so that a bad node is reported at its pointer).
std::vector<ResolvedFlow> load_flows_file(const std::string& path, const model::Topology& topology);
// The same for the text of a flows file; `file` names it in errors.
std::vector<ResolvedFlow> parse_flows_file(std::string_view text, const std::string& file, const model::Topology& topology);

// Resolves --flow specs in order (threads of earlier flows are taken first).
std::vector<ResolvedFlow> resolve_flow_specs(const std::vector<std::string>& specs, const model::Topology& topology);

}  // namespace numatwin::cli
