// `numatwin topo ...`: list, show, validate, hops, export, generate.
#pragma once

#include <functional>
#include <string>

#include "numatwin/model/topology.hpp"

namespace CLI {
class App;
}

namespace numatwin::cli {

// Writes a machine as hwloc XML (validate/hwloc_export.hpp, which needs hwloc): given by the
// binary; empty in the Python package, where `topo export --format hwloc-xml` is refused.
using HwlocXmlWriter = std::function<std::string(const model::Topology&)>;

void register_topo_commands(CLI::App& app, HwlocXmlWriter hwloc_xml);

}  // namespace numatwin::cli
