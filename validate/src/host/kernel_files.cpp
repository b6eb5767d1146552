#include "kernel_files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace numatwin::validate {

std::optional<std::string> read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string write_kernel_value(const std::string& path, const std::string& value) {
  std::ofstream out(path);
  if (!out) return std::string("cannot open for writing (") + std::strerror(errno) + ")";
  out << value << '\n';
  out.flush();
  if (!out) return "the kernel refused \"" + value + "\" (" + std::strerror(errno) + ")";
  return {};
}

}  // namespace numatwin::validate
