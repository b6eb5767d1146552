// Reading input files whole, and writing output files atomically: readers see the old file or the whole new one, never a
// half-written one (a temporary file in the same directory, flushed, then renamed over); and
// quoting one CSV field.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace numatwin::model {

// Throws std::runtime_error naming the path and the reason when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// The whole text of an input file; throws InputError naming the path when it cannot be opened or
// read (the readers of topologies, spec sheets and published data share it).
std::string read_input_file(const std::filesystem::path& path);

// A CSV field (RFC 4180): as is, or in double quotes (quotes doubled) when it holds a comma, a
// quote or a newline.
std::string csv_field(std::string_view text);

}  // namespace numatwin::model
