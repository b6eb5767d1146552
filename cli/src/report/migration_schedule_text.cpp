#include "report/migration_schedule_text.hpp"

#include <fmt/format.h>

namespace numatwin::cli {

namespace {

std::string tight_verdict(const sim::MigrationBound& b) {
  if (b.designed_kept()) {
    return fmt::format(
        "the designed (blocked) order: {:.6g} s tight against the ring's {:.6g} s ({:.2f} % faster in the fluid model), "
        "{:.3f} % above the bound ({:.6g} s); a thread re-binds {} times instead of up to {} (the ring was {:.2f} % above it)",
        b.designed_tight_s, b.ring_tight_s, 100.0 * (b.ring_tight_s / b.designed_tight_s - 1.0), 100.0 * b.chosen_gap(),
        b.bound_s, b.fewest_binds, b.ring_binds, 100.0 * b.tight_gap());
  }
  const std::string why = !b.has_design ? "the nodes hold unequal thread counts, so there is no blocked order"
                                        : fmt::format("the blocked order was not faster in the fluid model ({:.6g} s)", b.designed_tight_s);
  if (b.tight_gap() <= sim::kMigrationRingGap) {
    return fmt::format(
        "the ring: its tight time ({:.6g} s) is within {:.3f} % of the bound ({:.6g} s), which no order beats (every step reads "
        "each piece on its own node, so an order changes only when the state is read and how often a thread re-binds); {}",
        b.ring_tight_s, 100.0 * b.tight_gap(), b.bound_s, why);
  }
  return fmt::format("the ring: its tight time ({:.6g} s) is {:.2f} % above the bound ({:.6g} s), but {}", b.ring_tight_s,
                     100.0 * b.tight_gap(), b.bound_s, why);
}

}  // namespace

std::string migration_schedule_verdict(const sim::MigrationBound& b) {
  std::string out = tight_verdict(b);
  if (b.has_design && b.designed_loose_s > 0.0) {
    out += fmt::format("; loose: the {} ({:.6g} s designed, {:.6g} s ring)", b.designed_kept_loose() ? "designed order" : "ring",
                       b.designed_loose_s, b.ring_loose_s);
  }
  return out;
}

}  // namespace numatwin::cli
