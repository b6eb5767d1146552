#include "numatwin/validate/kernels/allocator.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace numatwin::validate {

const std::vector<AllocatorInfo>& known_allocators() {
  static const std::vector<AllocatorInfo> allocators = {
      {"glibc", "", "libc6", ""},
      {"jemalloc", "libjemalloc.so.2", "libjemalloc2", "libjemalloc"},
      {"tcmalloc", "libtcmalloc_minimal.so.4", "libgoogle-perftools4 (libtcmalloc-minimal4)", "libtcmalloc"},
      {"tbbmalloc", "libtbbmalloc_proxy.so.2", "libtbbmalloc2", "libtbbmalloc"},
  };
  return allocators;
}

const AllocatorInfo& allocator_by_name(const std::string& name) {
  std::string names;
  for (const AllocatorInfo& a : known_allocators()) {
    if (a.name == name) return a;
    names += (names.empty() ? "" : ", ") + a.name;
  }
  throw std::invalid_argument("unknown allocator \"" + name + "\"; expected one of " + names);
}

std::optional<std::string> find_allocator_library(const AllocatorInfo& allocator) {
  if (allocator.library.empty()) return std::string();
  for (const char* dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64",
                          "/usr/lib", "/usr/local/lib"}) {
    const std::filesystem::path path = std::filesystem::path(dir) / allocator.library;
    std::error_code error;
    if (std::filesystem::is_regular_file(path, error)) return path.string();
  }
  return std::nullopt;
}

bool built_with_address_sanitizer() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

std::string require_allocator_library(const AllocatorInfo& allocator) {
  if (allocator.library.empty()) return "";
  if (built_with_address_sanitizer())
    throw std::invalid_argument("allocator " + allocator.name +
                                ": this numatwin is built with AddressSanitizer, which replaces malloc; use a release build "
                                "(cmake --preset release) for allocator runs");
  const std::optional<std::string> path = find_allocator_library(allocator);
  if (!path)
    throw std::invalid_argument("allocator " + allocator.name + ": " + allocator.library +
                                " is not installed (Debian package " + allocator.package + ")");
  return *path;
}

std::string active_allocator() {
  if (built_with_address_sanitizer()) return "asan";  // AddressSanitizer's own malloc
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    for (const AllocatorInfo& a : known_allocators()) {
      if (!a.mapped_name.empty() && line.find(a.mapped_name) != std::string::npos) return a.name;
    }
  }
  return "glibc";
}

}  // namespace numatwin::validate
