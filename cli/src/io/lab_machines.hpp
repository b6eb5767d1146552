// The lab machines of the corpus (topologies/corpus/lab/*.json, docs/spec-sheet.md): machines
// whose measurements are an mlc run kept in the tree (tests/data/mlc) rather than a corpus file.
// A manifest names the spec sheet and the mlc output, paths relative to the manifest:
//   {"format": "numatwin-lab-machine", "format_version": 1, "id": "lab-skx-8180-2s",
//    "spec_sheet": "specs/skx-8180-2s.json", "mlc_output": "../../../tests/data/mlc/...txt",
//    "provenance": "..."}
// The mlc sections become the figure classes of measured_machine.hpp (matrices by mlc's node
// numbers, peak injection and the loaded-latency sweep over the whole machine, read-only).
#pragma once

#include <filesystem>
#include <vector>

#include "numatwin/model/measured_machine.hpp"

namespace numatwin::cli {

// Every *.json of `dir` (sorted); none when `dir` does not exist. Bad input: one InputError
// naming the manifest (or the mlc file) and the pointer (or line).
std::vector<model::MeasuredMachine> load_lab_machines(const std::filesystem::path& dir);

}  // namespace numatwin::cli
