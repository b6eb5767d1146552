#include "options/range_options.hpp"

#include <cmath>
#include <stdexcept>

namespace numatwin::cli {

std::vector<double> colon_numbers(const std::string& text, const std::string& usage) {
  std::vector<double> parts;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t colon = text.find(':', pos);
    const std::string part = text.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    try {
      std::size_t used = 0;
      parts.push_back(std::stod(part, &used));
      if (used != part.size()) throw std::invalid_argument(part);
    } catch (const std::exception&) {
      throw std::invalid_argument(usage);
    }
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  if (parts.empty() || parts.size() > 3) throw std::invalid_argument(usage);
  return parts;
}

std::vector<int> parse_thread_range(const std::string& text, int max_threads) {
  const std::string usage = "--threads \"" + text + "\": expected N, FIRST:LAST or FIRST:LAST:STEP";
  const std::vector<double> parts = colon_numbers(text, usage);
  for (double p : parts) {
    if (p != std::floor(p) || p > 1e6) throw std::invalid_argument(usage);
  }
  const int first = static_cast<int>(parts[0]);
  const int last = parts.size() > 1 ? static_cast<int>(parts[1]) : first;
  const int step = parts.size() > 2 ? static_cast<int>(parts[2]) : 1;
  if (first < 1 || last < first || step < 1) throw std::invalid_argument("--threads \"" + text + "\": need 1 <= FIRST <= LAST and STEP >= 1");
  if (last > max_threads) {
    throw std::invalid_argument("--threads \"" + text + "\": the machine has " + std::to_string(max_threads) + " hardware threads");
  }
  std::vector<int> out;
  for (int n = first; n <= last; n += step) out.push_back(n);
  return out;
}

std::vector<double> parse_factor_range(const std::string& text) {
  const std::string usage = "--groups-per-partition \"" + text + "\": expected FIRST:LAST:FACTOR, e.g. 10:1e7:10";
  const std::vector<double> parts = colon_numbers(text, usage);
  if (parts.size() != 3 || !(parts[0] >= 1.0) || parts[1] < parts[0] || !(parts[2] > 1.0)) throw std::invalid_argument(usage);
  std::vector<double> out;
  for (double g = parts[0]; g <= parts[1] * (1 + 1e-9) && out.size() < 100; g *= parts[2]) out.push_back(g);
  return out;
}

}  // namespace numatwin::cli
