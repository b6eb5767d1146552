#include "numatwin/validate/host/kernel_interleave_weights.hpp"

#include "kernel_files.hpp"

#include <sys/utsname.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace numatwin::validate {
namespace {

std::string kernel_release() {
  utsname u{};
  return uname(&u) == 0 ? std::string(u.release) : std::string("unknown");
}

std::string node_file(const std::string& directory, int node) { return directory + "/node" + std::to_string(node); }

}  // namespace

std::string weighted_interleave_auto_file(const std::string& directory) {
  for (const char* name : {"auto", "__auto_type"}) {
    const std::string path = directory + "/" + name;
    if (std::filesystem::exists(path)) return path;
  }
  return {};
}

KernelInterleaveWeights::KernelInterleaveWeights(const std::map<int, int>& weights, std::string directory)
    : directory_(std::move(directory)) {
  if (weights.empty()) throw std::invalid_argument("weighted interleave: no node weights given");
  for (const auto& [node, weight] : weights) {
    if (weight < 1 || weight > 255) {
      throw std::invalid_argument("weighted interleave: node " + std::to_string(node) + " has weight " + std::to_string(weight) +
                                  "; the kernel takes 1 to 255");
    }
  }
  if (!std::filesystem::is_directory(directory_)) {
    throw std::runtime_error(directory_ + " is missing: this kernel (" + kernel_release() +
                             ") has no weighted interleave (MPOL_WEIGHTED_INTERLEAVE came with Linux 6.9); nothing changed. "
                             "--weighted-interleave-by pages places the same layout page by page on any kernel");
  }
  auto_path_ = weighted_interleave_auto_file(directory_);
  if (!auto_path_.empty()) previous_auto_ = read_first_line(auto_path_);
  for (const auto& [node, weight] : weights) {
    const std::string path = node_file(directory_, node);
    const std::optional<std::string> old = read_first_line(path);
    if (!old) {
      (void)restore();
      throw std::runtime_error(path + " is missing or unreadable: Linux node " + std::to_string(node) +
                               " has no weighted-interleave weight (not a memory node?); weights not changed");
    }
    int old_weight = 0;
    try {
      old_weight = std::stoi(*old);
    } catch (const std::exception&) {
      (void)restore();
      throw std::runtime_error(path + ": expected a weight 1..255, read \"" + *old + "\"; weights not changed");
    }
    if (old_weight == weight) continue;
    const std::string why = write_kernel_value(path, std::to_string(weight));
    if (!why.empty()) {
      (void)restore();
      throw std::runtime_error(path + ": " + why + "; weights not changed");
    }
    previous_[node] = old_weight;
    written_[node] = weight;
  }
}

KernelInterleaveWeights::~KernelInterleaveWeights() { (void)restore(); }

std::string KernelInterleaveWeights::restore() noexcept {
  if (restored_) return restore_problem_;
  restored_ = true;
  try {
    for (const auto& [node, weight] : previous_) {
      const std::string path = node_file(directory_, node);
      if (const std::string why = write_kernel_value(path, std::to_string(weight)); !why.empty()) {
        restore_problem_ += (restore_problem_.empty() ? "" : "; ") + path + " not restored to " + std::to_string(weight) + ": " + why;
      }
    }
    // Writing a node switched the kernel to manual mode; "true" makes it derive its weights again.
    if (!written_.empty() && previous_auto_ && *previous_auto_ == "true" && !auto_path_.empty()) {
      if (const std::string why = write_kernel_value(auto_path_, "true"); !why.empty()) {
        restore_problem_ += (restore_problem_.empty() ? "" : "; ") + auto_path_ + " left \"false\" (manual mode): " + why +
                            (why.find("No such device") != std::string::npos
                                 ? "; the kernel has no bandwidth figures to derive weights from"
                                 : "");
      }
    }
  } catch (...) {
    restore_problem_ += (restore_problem_.empty() ? "" : "; ") + std::string("restoring failed");
  }
  return restore_problem_;
}

std::string KernelInterleaveWeights::description() const {
  std::string out = "sysfs";
  for (const auto& [node, weight] : written_) out += " node" + std::to_string(node) + "=" + std::to_string(weight);
  if (written_.empty()) out += " weights already as asked";
  if (!previous_.empty()) {
    out += " (were";
    const char* sep = " ";
    for (const auto& [node, weight] : previous_) {
      out += sep + std::to_string(weight);
      sep = ", ";
    }
    out += ")";
  }
  if (previous_auto_) out += "; auto mode was " + *previous_auto_;
  if (!restored_) return out + "; not restored yet";
  if (written_.empty()) return out;
  return out + (restore_problem_.empty() ? "; restored after the run" : "; after the run: " + restore_problem_);
}

}  // namespace numatwin::validate
