// The kernel's weighted-interleave weights for real: Linux 6.9 and later spread the pages of a
// region under MPOL_WEIGHTED_INTERLEAVE by one system-wide weight per node, read from
// /sys/kernel/mm/mempolicy/weighted_interleave/nodeN (1..255; Documentation/ABI/testing/
// sysfs-kernel-mm-mempolicy-weighted-interleave). Since Linux 6.16 the directory also has an
// `auto` file: "true" while the kernel derives the weights from the firmware's bandwidth figures
// (HMAT, CXL CDAT), "false" once a user wrote a weight (writing any nodeN switches it to false;
// writing "true" makes the kernel derive them again). Kernels 6.18.x built with the kernel's
// `#define auto __auto_type` name that file `__auto_type` (seen on this project's build host,
// 6.18.44); both names are read.
//
// KernelInterleaveWeights sets the weights of the given nodes for its lifetime and restores the
// directory afterwards (restore(), or the destructor when the run throws): every nodeN it wrote
// gets its old weight back, then, when the kernel was in auto mode before, "true" goes to `auto`
// so that the kernel derives its own weights again. A kernel with no bandwidth figures to derive
// them from refuses that with ENODEV (seen on this project's 1-node build VM, 6.18.44: auto
// "true" at boot, weights all 1); the weights are then back as they were but the mode stays
// manual, and restore() says so. Every process that uses MPOL_WEIGHTED_INTERLEAVE sees the weights while
// the run lasts, as with the NUMA-balancing switch (numa_balancing.hpp).
// Errors, each naming the file and what was not changed (std::runtime_error): no such directory
// (a kernel before 6.9, or without NUMA), a node with no nodeN file, a write the kernel refuses
// (not root, a read-only /sys); weights already written are put back before the error is thrown.
// A weight outside 1..255 is std::invalid_argument.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace numatwin::validate {

inline constexpr const char* kWeightedInterleaveSysfs = "/sys/kernel/mm/mempolicy/weighted_interleave";

class KernelInterleaveWeights {
 public:
  // weights: Linux node -> weight. `directory`: the sysfs directory (tests pass a scratch copy).
  explicit KernelInterleaveWeights(const std::map<int, int>& weights, std::string directory = kWeightedInterleaveSysfs);
  ~KernelInterleaveWeights();
  KernelInterleaveWeights(const KernelInterleaveWeights&) = delete;
  KernelInterleaveWeights& operator=(const KernelInterleaveWeights&) = delete;

  // What was there before: every node weight written (node -> old weight) and the auto mode
  // ("true", "false", or nullopt on kernels without the file).
  [[nodiscard]] const std::map<int, int>& previous_weights() const { return previous_; }
  [[nodiscard]] const std::optional<std::string>& previous_auto() const { return previous_auto_; }
  // Puts everything back (once); returns what could not be put back, empty when all was.
  std::string restore() noexcept;
  // One line for a report: "sysfs node2=3 (were 1); auto mode was true; restored after the run".
  [[nodiscard]] std::string description() const;

 private:
  std::string directory_;
  std::map<int, int> written_;
  std::map<int, int> previous_;
  std::optional<std::string> previous_auto_;
  std::string auto_path_;
  bool restored_ = false;
  std::string restore_problem_;
};

// The file that holds the auto mode in `directory` ("auto", or "__auto_type"), empty when neither
// exists (kernels 6.9-6.15).
std::string weighted_interleave_auto_file(const std::string& directory);

}  // namespace numatwin::validate
