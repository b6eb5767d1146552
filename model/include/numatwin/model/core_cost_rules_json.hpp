// Reading a loop-cycle table (core_cost_rules.hpp): the JSON tools/loop-cycles/derive.py writes.
// Fields read (others are the table's own record and ignored):
//   /provenance/llvm_mca                                   the analyser's version
//   /microarchitectures/<name>/scheduling_model/model      null: no cycles for this core
//   /microarchitectures/<name>/scheduling_model/borrowed
//   /microarchitectures/<name>/model_costs/<cost>/value    cycles >= 0, per operator cost
//   /microarchitectures/<name>/model_costs/select_cycles_per_value/select_16, /select_256
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "numatwin/model/core_cost_rules.hpp"

namespace numatwin::model {

// Throws InputError naming the file, the field (JSON pointer) and what was expected.
LoopCycleTable parse_loop_cycles(std::string_view json_text, const std::string& source_name);
LoopCycleTable load_loop_cycles(const std::filesystem::path& path);

}  // namespace numatwin::model
