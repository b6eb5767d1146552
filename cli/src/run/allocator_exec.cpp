#include "run/allocator_exec.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "numatwin/validate/kernels/allocator.hpp"

extern char** environ;

namespace numatwin::cli {

std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\0') {
      args.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return args;
}

std::optional<int> run_under_allocator(const std::string& allocator, const std::vector<std::string>& arguments) {
  const validate::AllocatorInfo& info = validate::allocator_by_name(allocator);
  const char* marker = std::getenv("NUMATWIN_ALLOCATOR");
  const std::string active = validate::active_allocator();
  if (marker != nullptr && allocator == marker) {
    if (active != allocator && !(info.library.empty() && active == "asan"))
      throw std::runtime_error("LD_PRELOAD of " + info.library + " did not take effect: this process runs with " + active);
    return std::nullopt;
  }
  if (active == allocator || (info.library.empty() && active == "asan")) return std::nullopt;  // asan: its own malloc
  return run_in_child(allocator, arguments);
}

int run_in_child(const std::string& allocator, const std::vector<std::string>& arguments) {
  const validate::AllocatorInfo& info = validate::allocator_by_name(allocator);
  const std::string library = validate::require_allocator_library(info);

  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) == 0 || std::strncmp(*e, "NUMATWIN_ALLOCATOR=", 19) == 0) continue;
    env_strings.emplace_back(*e);
  }
  if (!library.empty()) env_strings.push_back("LD_PRELOAD=" + library);
  env_strings.push_back("NUMATWIN_ALLOCATOR=" + allocator);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = arguments;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t child = 0;
  const int rc = posix_spawn(&child, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data());
  if (rc != 0) throw std::runtime_error(std::string("cannot start numatwin under ") + allocator + ": " + std::strerror(rc));
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waiting for the ") + allocator + " run: " + std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void ensure_allocator(const std::string& allocator) {
  const std::optional<int> status = run_under_allocator(allocator, own_arguments());
  if (status) throw ChildExit{*status};
}

}  // namespace numatwin::cli
