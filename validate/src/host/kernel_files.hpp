// Reading and writing the kernel's one-value files (/proc/sys, /sys): the NUMA-balancing switch
// and the weighted-interleave weights share them.
#pragma once

#include <optional>
#include <string>

namespace numatwin::validate {

// The file's first line without its trailing newline and spaces; nullopt when the file cannot be
// read or is empty.
std::optional<std::string> read_first_line(const std::string& path);

// Writes `value` (and a newline) to `path`; empty when it worked, else why not: "cannot open for
// writing (Permission denied)" or "the kernel refused "5" (Invalid argument)". A kernel file
// reports a refused value on the write itself, so the stream is flushed before it is checked.
std::string write_kernel_value(const std::string& path, const std::string& value);

}  // namespace numatwin::validate
