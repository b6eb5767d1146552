// Writing output files atomically: readers see the old file or the whole new one, never a
// half-written one (a temporary file in the same directory, flushed, then renamed over).
#pragma once

#include <filesystem>
#include <string_view>

namespace numatwin::model {

// Throws std::runtime_error naming the path and the reason when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace numatwin::model
