// Transparent huge pages as the system has them, and the page setting a run's prediction uses.
//
// The system-wide switches are /sys/kernel/mm/transparent_hugepage/enabled ("always", "madvise"
// or "never") and .../defrag ("always", "defer", "defer+madvise", "madvise", "never"); each file
// lists the choices with the one in force in brackets: "always [madvise] never". They are read,
// never written.
//
// `validate run --huge-pages on|off|madvise` advises the kernels' placed datasets:
//   on, madvise  madvise(MADV_HUGEPAGE) on every placed dataset; the allocator's own heap (MEDIAN
//                per group's blocks, the chained join's nodes) is not advised and follows the
//                system: 2 MiB pages only with "always". (`on` asks for huge pages everywhere,
//                which a process can only get from the system's "always".)
//   off          MADV_NOHUGEPAGE on every placed dataset.
// So what the run gets, and the setting its prediction uses (model/tlb.hpp), is, with the system's
// `enabled` as recorded:
//   requested off, or enabled "never"   -> off       (4 KiB pages for the datasets; with "always" the
//                                                     heap may still get 2 MiB: the model has no
//                                                     such setting, off is the nearer)
//   enabled "always" (on or madvise)    -> on        (every buffer)
//   enabled "madvise" (on or madvise)   -> madvise   (the datasets, not the heap)
//   enabled unknown (no such file)      -> the requested setting
#pragma once

#include <string>

#include "numatwin/model/tlb.hpp"

namespace numatwin::validate {

struct TransparentHugePages {
  std::string enabled;  // "always", "madvise", "never"; "" when unreadable
  std::string defrag;   // "always", "defer", "defer+madvise", "madvise", "never"; "" when unreadable
  std::string why;      // why a file could not be read ("" when both were)
};

// The bracketed choice of a sysfs selection line ("always [madvise] never" -> "madvise"); "" when
// there is none.
[[nodiscard]] std::string bracketed_choice(const std::string& line);
// Reads `directory`/enabled and `directory`/defrag.
[[nodiscard]] TransparentHugePages read_transparent_huge_pages(
    const std::string& directory = "/sys/kernel/mm/transparent_hugepage");
// The table above.
[[nodiscard]] model::HugePages effective_huge_pages(model::HugePages requested, const std::string& enabled);

}  // namespace numatwin::validate
