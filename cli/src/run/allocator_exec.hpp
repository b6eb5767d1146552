// Running a validator command under another allocator: the command re-executes itself
// (/proc/self/exe, same arguments) with LD_PRELOAD naming the allocator's library and
// NUMATWIN_ALLOCATOR naming the allocator; the child checks that the library is really mapped.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace numatwin::cli {

// Thrown to end this process with the status of a child that ran the command (main.cpp).
struct ChildExit {
  int status = 0;
};

// The arguments of this process (from /proc/self/cmdline), argv[0] first.
std::vector<std::string> own_arguments();

// Where the command should run for `allocator`:
//   nullopt          here: the process already runs with it (checked: a child whose preload did
//                    not take effect throws std::runtime_error);
//   an exit status   the command was run in a child under the allocator; exit with this status.
// Throws std::invalid_argument (before any work) for an unknown or missing allocator.
std::optional<int> run_under_allocator(const std::string& allocator, const std::vector<std::string>& arguments);

// Always runs `arguments` (argv[0] first; the program is /proc/self/exe) in a child under
// `allocator` and returns its exit status. Throws like run_under_allocator.
int run_in_child(const std::string& allocator, const std::vector<std::string>& arguments);

// Re-runs the whole command under the allocator when needed (run_under_allocator); when it ran in
// a child, throws ChildExit with the child's status.
void ensure_allocator(const std::string& allocator);

}  // namespace numatwin::cli
