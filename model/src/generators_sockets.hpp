// Private to model/src: the socket families of generate_topology (generators_sockets.cpp).
#pragma once

#include "numatwin/model/generators.hpp"

namespace numatwin::model::detail {

// kIntelSnc and kAmdNps from params.socket (plus params.coherence, performance and name).
Topology generate_socket_family(const GeneratorParams& params);

}  // namespace numatwin::model::detail
