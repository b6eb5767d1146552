// A plain text table for terminal output: columns padded to their widest cell, numbers right-aligned.
#pragma once

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

}  // namespace numatwin::cli
