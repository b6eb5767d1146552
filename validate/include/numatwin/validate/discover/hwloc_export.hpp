// A numatwin machine as an hwloc XML topology (hwloc 2 format), with the model's
// initiator x target figures as hwloc memory attributes, so that hwloc's tools (`lstopo
// --memattrs`, `hwloc-info`) and its API (hwloc_memattr_get_value) read numatwin's figures: the
// full matrix, measured against contention as the model predicts it, that Linux does not expose.
//
// The tree: Machine > one Package per package (a node without a package is its own) > per node
// with cores a Group holding its NUMANode and its Cores (each with threads_per_core PUs);
// memory-only nodes (HBM, CXL) are NUMANodes of their package, or, without one, of the package
// of the first node with cores on their route to a CPU (a CXL expander hangs off its host
// socket), with that package's cpuset as their locality. Routers are left out (hwloc has no
// object for them). CPU numbering is numatwin's (sim/workload/thread_placement.hpp): hardware thread h of
// global core c is PU h x total_cores + c. NUMANode os_index is the node's index in the file.
//
// Memory attributes (initiator: the cpuset of a node with cores; target: every memory node):
//   Bandwidth, ReadBandwidth   MiB/s (hwloc's unit): all hardware threads of the initiator node
//                               read the target at once, as MLC's bandwidth matrix does
//                               (model/microbenchmark.hpp); the model's steady state.
//   Latency, ReadLatency       ns: the idle latency of one miss (routing: local latency, links,
//                               remote overhead).
//   numatwin_loaded_latency_ns ns: the latency of that miss while the Bandwidth figure's load
//                               runs (its streams' mean; the queue terms of bandwidth_model.hpp).
// Values are rounded to whole units (hwloc stores integers). A distance matrix "NUMALatency"
// (SLIT style, 10 = local) over the memory nodes: 10 x idle latency / the local idle latency,
// seen from each node's cores; a memory-only node as the sockets see it (hwloc_export.cpp). Machine info attributes name the
// source: NumatwinTopology (the file's name) and NumatwinFigures ("predicted by the numatwin
// model from the topology file's figures").
#pragma once

#include <string>

#include "numatwin/model/topology.hpp"

namespace numatwin::validate {

// The XML text. Throws std::invalid_argument for a machine without a node that has both cores
// and memory reachable (check_topology's rules hold for every loadable file).
std::string hwloc_export_xml(const model::Topology& topology);

}  // namespace numatwin::validate
