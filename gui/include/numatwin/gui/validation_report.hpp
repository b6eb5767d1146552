// The reading side of a validator report (measured next to predicted per kernel, and measured
// link traffic where counters were available). The shape is small and documented in
// docs/gui.md ("Validator reports"); `numatwin validate suite` and `validate run` write it. A value the
// hardware could not give is absent or null with a reason, never 0.
#pragma once

#include <QString>
#include <optional>
#include <vector>

namespace numatwin::gui {

struct LinkTraffic {
  QString link;  // "s0->s1", as model::Topology::link_name
  double predicted_gbps = 0.0;
  std::optional<double> measured_gbps;
  QString not_measured;  // why measured_gbps is absent ("" when it is present)
};

struct KernelComparison {
  QString id;
  QString workload;   // "shuffle", "migration", ...
  QString algorithm;  // may be empty
  QString sync;       // may be empty
  int threads = 0;
  double predicted_gbps = 0.0;
  std::optional<double> measured_gbps;
  QString not_measured;
  std::vector<LinkTraffic> links;
  std::optional<double> predicted_gbps_after_fit;  // details.predicted_gbps_after_fit (the suite's cost fit)

  // (predicted - measured) / measured, when measured.
  [[nodiscard]] std::optional<double> relative_error() const;
  // The same, with the prediction after the cost fit, when both are there.
  [[nodiscard]] std::optional<double> relative_error_after_fit() const;
};

struct ValidationReport {
  QString machine;
  QString host;
  std::vector<KernelComparison> kernels;
};

// Parses a report. Throws model::InputError(source_name, json pointer, expectation).
ValidationReport parse_validation_report(const QByteArray& json_text, const QString& source_name);
// Reads and parses a file; an unreadable file is an InputError too.
ValidationReport load_validation_report(const QString& path);

}  // namespace numatwin::gui
