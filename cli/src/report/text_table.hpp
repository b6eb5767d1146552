// A plain text table for terminal output: columns padded to their widest cell, numbers right-aligned.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace numatwin::cli {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  [[nodiscard]] std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// A size for a human, to one decimal in GiB and MiB: "1.5 GiB", "3.0 MiB", "48 KiB", "12 B".
std::string rounded_bytes_text(std::int64_t bytes);

}  // namespace numatwin::cli
