#include "report/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace numatwin::cli {
namespace {

bool looks_numeric(const std::string& cell) {
  if (cell.empty()) return false;
  return std::all_of(cell.begin(), cell.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e';
  });
}

}  // namespace

std::string TextTable::render() const {
  std::vector<std::size_t> width(header_.size(), 0);
  auto widen = [&width](const std::vector<std::string>& row) {
    if (row.size() > width.size()) width.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  widen(header_);
  for (const auto& row : rows_) widen(row);
  auto line = [&width](const std::vector<std::string>& row, bool header) {
    std::string out;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::size_t pad = width[i] - row[i].size();
      const bool right = !header && looks_numeric(row[i]);
      if (i > 0) out += "  ";
      if (right) out += std::string(pad, ' ');
      out += row[i];
      if (!right && i + 1 < row.size()) out += std::string(pad, ' ');
    }
    return out + "\n";
  };
  std::string out = line(header_, true);
  for (const auto& row : rows_) out += line(row, false);
  return out;
}

std::string rounded_bytes_text(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024.0 * 1024.0) return fmt::format("{:.1f} GiB", b / (1024.0 * 1024.0 * 1024.0));
  if (b >= 1024.0 * 1024.0) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024.0));
  if (b >= 1024.0) return fmt::format("{:.0f} KiB", b / 1024.0);
  return fmt::format("{} B", bytes);
}

}  // namespace numatwin::cli
