// Ranges on the command line: "N", "FIRST:LAST" or "FIRST:LAST:STEP" thread counts and
// "FIRST:LAST:FACTOR" geometric ranges (numbers may use exponents).
#pragma once

#include <string>
#include <vector>

namespace numatwin::cli {

// The numbers of "A:B:C" (1 to 3 of them); `usage` is the error for anything else.
std::vector<double> colon_numbers(const std::string& text, const std::string& usage);
// "1:32" or "1:32:4" or "8", each at most `max_threads`.
std::vector<int> parse_thread_range(const std::string& text, int max_threads);
// "FIRST:LAST:FACTOR": FIRST, FIRST*FACTOR, ... up to LAST (at most 100 values).
std::vector<double> parse_factor_range(const std::string& text);

}  // namespace numatwin::cli
