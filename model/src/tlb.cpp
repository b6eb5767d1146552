#include "numatwin/model/tlb.hpp"

#include <algorithm>

namespace numatwin::model {

double page_size_bytes(PageSize page) { return page == PageSize::k4KiB ? kPage4KiBBytes : kPage2MiBBytes; }

std::string_view page_size_name(PageSize page) { return page == PageSize::k4KiB ? "4 KiB" : "2 MiB"; }

std::string_view huge_pages_name(HugePages setting) {
  switch (setting) {
    case HugePages::kOn:
      return "on";
    case HugePages::kOff:
      return "off";
    case HugePages::kMadvise:
      return "madvise";
  }
  return "on";
}

std::optional<HugePages> parse_huge_pages(std::string_view text) {
  if (text == "on") return HugePages::kOn;
  if (text == "off") return HugePages::kOff;
  if (text == "madvise") return HugePages::kMadvise;
  return std::nullopt;
}

PageSize page_size_of(HugePages setting, BufferKind buffer) {
  switch (setting) {
    case HugePages::kOn:
      return PageSize::k2MiB;
    case HugePages::kOff:
      return PageSize::k4KiB;
    case HugePages::kMadvise:
      return buffer == BufferKind::kPlaced ? PageSize::k2MiB : PageSize::k4KiB;
  }
  return PageSize::k2MiB;
}

TlbBasis tlb_basis(const std::optional<TlbSpec>& from_file) {
  TlbBasis basis;
  const TlbSpec spec = from_file.value_or(TlbSpec{});
  basis.source = spec.source;
  auto take = [&basis](const char* name, const auto& given, auto& field) {
    if (given) {
      field = *given;
      basis.given.emplace_back(name);
    } else {
      basis.defaulted.emplace_back(name);
    }
  };
  TlbFigures& f = basis.figures;
  take("l1_entries_4k", spec.l1_entries_4k, f.l1_entries_4k);
  take("l1_entries_2m", spec.l1_entries_2m, f.l1_entries_2m);
  take("stlb_entries_4k", spec.stlb_entries_4k, f.stlb_entries_4k);
  take("stlb_entries_2m", spec.stlb_entries_2m, f.stlb_entries_2m);
  take("stlb_hit_ns", spec.stlb_hit_ns, f.stlb_hit_ns);
  take("page_walk_ns_4k", spec.page_walk_ns_4k, f.page_walk_ns_4k);
  take("page_walk_ns_2m", spec.page_walk_ns_2m, f.page_walk_ns_2m);
  take("concurrent_walks", spec.concurrent_walks, f.concurrent_walks);
  return basis;
}

std::string TlbBasis::description() const {
  auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  if (given.empty()) return "tlb: defaults (no /tlb in the topology: Skylake's entries, uncalibrated walk costs)";
  std::string out = "tlb: " + join(given) + " from " + source;
  if (!defaulted.empty()) out += "; defaults: " + join(defaulted);
  return out;
}

double tlb_reach_bytes(int entries, PageSize page) { return static_cast<double>(entries) * page_size_bytes(page); }

double tlb_miss_ratio(double footprint_bytes, double reach_bytes) {
  if (!(footprint_bytes > 0.0)) return 0.0;
  return 1.0 - std::min(1.0, reach_bytes / footprint_bytes);
}

double translation_ns_per_access(const TlbFigures& tlb, double footprint_bytes, PageSize page, double accesses_in_flight) {
  const bool small = page == PageSize::k4KiB;
  const double m1 = tlb_miss_ratio(footprint_bytes, tlb_reach_bytes(small ? tlb.l1_entries_4k : tlb.l1_entries_2m, page));
  const double m2 = tlb_miss_ratio(footprint_bytes, tlb_reach_bytes(small ? tlb.stlb_entries_4k : tlb.stlb_entries_2m, page));
  const double walk_ns = small ? tlb.page_walk_ns_4k : tlb.page_walk_ns_2m;
  const double share = std::clamp((accesses_in_flight - 1.0) / 15.0, 0.0, 1.0);
  const double overlap = 1.0 + (std::max(1.0, tlb.concurrent_walks) - 1.0) * share;
  return (std::max(0.0, m1 - m2) * tlb.stlb_hit_ns + m2 * walk_ns) / overlap;
}

double extra_translation_ns(const TlbFigures& tlb, double footprint_bytes, PageSize page, double accesses_in_flight) {
  if (page == PageSize::k2MiB) return 0.0;
  return std::max(0.0, translation_ns_per_access(tlb, footprint_bytes, page, accesses_in_flight) -
                           translation_ns_per_access(tlb, footprint_bytes, PageSize::k2MiB, accesses_in_flight));
}

}  // namespace numatwin::model
