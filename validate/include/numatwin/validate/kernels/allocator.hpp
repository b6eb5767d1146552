// Memory allocators for the kernels and the allocator benchmark (Durner, Leis and Neumann, "On
// the impact of memory allocation on high-performance query processing"): glibc malloc (the
// default) and, through LD_PRELOAD of their Debian libraries, jemalloc, tcmalloc and tbbmalloc.
//
// A run under another allocator re-executes the same command with LD_PRELOAD set; the child
// checks /proc/self/maps that the library is really mapped, so a preload that silently failed
// is an error rather than a glibc run under another name.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace numatwin::validate {

struct AllocatorInfo {
  std::string name;         // "glibc", "jemalloc", "tcmalloc", "tbbmalloc"
  std::string library;      // file name to preload ("" for glibc)
  std::string package;      // the Debian package that ships it
  std::string mapped_name;  // a substring of its path in /proc/self/maps ("" for glibc)
};

// The allocators numatwin knows, glibc first.
const std::vector<AllocatorInfo>& known_allocators();

// Throws std::invalid_argument listing the known names for an unknown one.
const AllocatorInfo& allocator_by_name(const std::string& name);

// The preloadable path of the allocator's library, searched in the multiarch and plain library
// directories; nullopt when it is not installed (and "" for glibc).
std::optional<std::string> find_allocator_library(const AllocatorInfo& allocator);

// Throws std::invalid_argument, before any work, naming the library and the package to install
// when the allocator cannot be used here (missing library, or a sanitizer build that must keep
// its own malloc).
std::string require_allocator_library(const AllocatorInfo& allocator);

// The allocator this process runs with, from /proc/self/maps: the first known non-glibc library
// that is mapped, else "glibc".
std::string active_allocator();

// True when this binary was built with AddressSanitizer (which replaces malloc itself).
bool built_with_address_sanitizer();

}  // namespace numatwin::validate
