// `validate measure --tlb-only` (and the end of a full `validate measure`): the TLB microbenchmark
// (validate/tlb_microbenchmark.hpp) on this machine's first usable CPU, as the report's "tlb"
// section, and its text.
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace numatwin::cli {

// nullopt when interrupted.
std::optional<nlohmann::json> measure_tlb(bool quick, const std::atomic<bool>* stop);
std::string tlb_text(const nlohmann::json& section);

}  // namespace numatwin::cli
