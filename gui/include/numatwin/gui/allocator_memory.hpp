// Durner et al.'s view of allocators in the GUI: resident memory over time, one line per
// allocator, from the JSON that `numatwin validate allocbench --arrivals RATE --out FILE` writes
// (docs/allocators.md "Queries arriving over time"): RSS MiB against seconds after the stream's
// origin, each allocator's last query end marked by a dashed line in its colour, the idle period
// that follows shaded, and under the time axis one row per allocator with its query period
// (first arrival to last end, tinted) and its idle period (solid). A legend gives each
// allocator's peak and the share of its growth returned after the idle period.
//
// gui reads the file with Qt's JSON (validate/ is not a gui dependency); the fields it needs are
// listed in allocator_memory_json.cpp, others are ignored (the CLI's output grows).
#pragma once

#include <QColor>
#include <QPainter>
#include <QRectF>
#include <QString>
#include <filesystem>
#include <string>
#include <vector>

namespace numatwin::gui {

struct AllocatorMemoryView {
  struct Sample {
    double seconds = 0.0;
    double rss_bytes = 0.0;
  };
  struct Series {
    std::string allocator;
    std::vector<Sample> samples;  // oldest first
    double rss_before_bytes = 0.0;
    double rss_peak_bytes = 0.0;
    double rss_end_of_queries_bytes = 0.0;
    double rss_after_idle_bytes = 0.0;
    double returned_share = 0.0;  // (peak - after idle) / (peak - before), as the file gives it
    int queries = 0;
    double first_arrival_s = 0.0;
    double last_query_end_s = 0.0;
    double idle_begin_s = 0.0;
    double idle_end_s = 0.0;
    // False for files written before idle_begin_s / idle_end_s were recorded: the idle period is
    // then taken as the idle_seconds before the last sample (the sampler stops right after it).
    bool idle_recorded = true;
    double p50_s = 0.0;
    double p99_s = 0.0;
    double queries_per_second = 0.0;
  };
  std::string title;  // the stream: queries, mix, records, rate, in flight, idle seconds
  double idle_seconds = 0.0;
  std::vector<Series> series;
};

// `numatwin validate allocbench --arrivals ... --out FILE` (an array, one object per allocator)
// or one such object alone. Throws model::InputError (file, JSON pointer, expectation).
AllocatorMemoryView read_allocator_memory(const std::filesystem::path& path);

// The legend line of one allocator, e.g. "glibc: peak 110.0 MiB, 0 % returned after the idle
// period".
QString allocator_memory_legend(const AllocatorMemoryView::Series& series);

// The colour of an allocator's line: fixed for the four allocbench knows (glibc, jemalloc,
// tcmalloc, tbbmalloc), else from a palette by index.
QColor allocator_colour(const std::string& allocator, std::size_t index);

// The colour the idle period is shaded with in the plot.
QColor allocator_idle_shade();

// Where things are drawn in `area`: the plot (axes' inside), one row per series under the time
// axis, the legend; x of a time and y of a resident size.
struct AllocatorMemoryLayout {
  QRectF plot;
  std::vector<QRectF> rows;  // per series: its query and idle periods
  QRectF legend;
  double end_s = 0.0;    // the time axis' end: the last sample or idle period's end
  double top_mib = 0.0;  // the RSS axis' top (a round number at or above the largest sample)
  [[nodiscard]] double x_of(double t_s) const;
  [[nodiscard]] double y_of(double mib) const;
};

AllocatorMemoryLayout allocator_memory_layout(const AllocatorMemoryView& view, const QRectF& area);

void paint_allocator_memory(QPainter& painter, const QRectF& area, const AllocatorMemoryView& view);

}  // namespace numatwin::gui
