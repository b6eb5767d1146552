#include "numatwin/model/file_io.hpp"

#include "numatwin/model/input_error.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace numatwin::model {

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  const std::filesystem::path directory =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  // A unique name beside the target, so the final rename stays on one file system.
  std::string name = ".";
  name.append(path.filename().string()).append(".tmp-XXXXXX");
  std::string pattern = (directory / name).string();
  std::FILE* file = nullptr;
  {
    // mkstemp wants a mutable char buffer.
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0) {
      throw std::runtime_error(path.string() + ": cannot create a temporary file in " +
                               directory.string() + ": " + std::strerror(errno));
    }
    ::fchmod(fd, 0644);  // mkstemp creates 0600; output files are meant to be shared
    file = ::fdopen(fd, "wb");
    if (file == nullptr) {
      const int error = errno;
      std::remove(pattern.c_str());
      throw std::runtime_error(path.string() + ": cannot open a temporary file: " + std::strerror(error));
    }
  }
  const bool written = std::fwrite(contents.data(), 1, contents.size(), file) == contents.size() &&
                       std::fflush(file) == 0;
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    std::remove(pattern.c_str());
    throw std::runtime_error(path.string() + ": cannot write the file (disk full?)");
  }
  std::error_code error;
  std::filesystem::rename(pattern, path, error);
  if (error) {
    std::remove(pattern.c_str());
    throw std::runtime_error(path.string() + ": cannot replace the file: " + error.message());
  }
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string read_input_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", "cannot open the file for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path.string(), "", "cannot read the file");
  return text.str();
}

}  // namespace numatwin::model
