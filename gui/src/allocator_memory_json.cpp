// Reading `numatwin validate allocbench --arrivals ... --out FILE` for the memory-over-time view
// (allocator_memory.hpp). The file is an array with one object per allocator (one object alone
// is accepted too: a child's result file). Per object the fields drawn: allocator, queries,
// query_records, mix, rate_per_second, max_in_flight, idle_seconds, sample_period_ms (the title),
// latency_s.{p50, p99}, queries_per_second, rss_bytes.{before, peak, end_of_queries, after_idle},
// returned_share, last_query_end_s, optional idle_begin_s and idle_end_s (both or neither),
// query_times[].{arrival_s, end_s} and rss_samples {columns ["seconds", "rss_bytes"], rows
// [[seconds, bytes], ...]} with at least one row and times that never decrease. Other fields are
// ignored. Every error names the file and the JSON pointer.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <algorithm>
#include <cmath>

#include "numatwin/gui/allocator_memory.hpp"
#include "numatwin/model/input_error.hpp"
#include "qjson_reader.hpp"

namespace numatwin::gui {
namespace {

std::string round_text(double x) { return QString::number(x, 'g', 6).toStdString(); }

using Reader = QJsonReader;

AllocatorMemoryView::Series read_series(const Reader& r, const QJsonObject& o, const std::string& at) {
  AllocatorMemoryView::Series s;
  s.allocator = r.string(o, "allocator", at);
  s.queries = static_cast<int>(r.number(o, "queries", at, 1.0));
  s.queries_per_second = r.number(o, "queries_per_second", at, 0.0);
  const QJsonObject latency = r.object(r.required(o, "latency_s", at), at + "/latency_s");
  s.p50_s = r.number(latency, "p50", at + "/latency_s", 0.0);
  s.p99_s = r.number(latency, "p99", at + "/latency_s", 0.0);
  const std::string rss_at = at + "/rss_bytes";
  const QJsonObject rss = r.object(r.required(o, "rss_bytes", at), rss_at);
  s.rss_before_bytes = r.number(rss, "before", rss_at, 0.0);
  s.rss_peak_bytes = r.number(rss, "peak", rss_at, 0.0);
  s.rss_end_of_queries_bytes = r.number(rss, "end_of_queries", rss_at, 0.0);
  s.rss_after_idle_bytes = r.number(rss, "after_idle", rss_at, 0.0);
  s.returned_share = r.number(o, "returned_share", at);
  s.last_query_end_s = r.number(o, "last_query_end_s", at, 0.0);

  const QJsonArray times = r.array(o, "query_times", at);
  if (times.isEmpty()) r.fail(at + "/query_times", "expected at least one query");
  s.first_arrival_s = 1e300;
  for (qsizetype i = 0; i < times.size(); ++i) {
    const std::string qat = at + "/query_times/" + std::to_string(i);
    const QJsonObject q = r.object(times[i], qat);
    s.first_arrival_s = std::min(s.first_arrival_s, r.number(q, "arrival_s", qat, 0.0));
    (void)r.number(q, "end_s", qat, 0.0);
  }

  const std::string samples_at = at + "/rss_samples";
  const QJsonObject samples = r.object(r.required(o, "rss_samples", at), samples_at);
  const QJsonArray columns = r.array(samples, "columns", samples_at);
  if (columns != QJsonArray{QStringLiteral("seconds"), QStringLiteral("rss_bytes")})
    r.fail(samples_at + "/columns", "expected [\"seconds\", \"rss_bytes\"]");
  const QJsonArray rows = r.array(samples, "rows", samples_at);
  if (rows.isEmpty()) r.fail(samples_at + "/rows", "expected at least one sample");
  for (qsizetype i = 0; i < rows.size(); ++i) {
    const std::string row_at = samples_at + "/rows/" + std::to_string(i);
    const QJsonArray row = rows[i].toArray();
    if (!rows[i].isArray() || row.size() != 2 || !row[0].isDouble() || !row[1].isDouble())
      r.fail(row_at, "expected [seconds, rss_bytes], two numbers");
    const AllocatorMemoryView::Sample sample{row[0].toDouble(), row[1].toDouble()};
    if (!std::isfinite(sample.seconds) || sample.seconds < 0.0) r.fail(row_at + "/0", "expected seconds >= 0");
    if (!std::isfinite(sample.rss_bytes) || sample.rss_bytes < 0.0) r.fail(row_at + "/1", "expected bytes >= 0");
    if (!s.samples.empty() && sample.seconds < s.samples.back().seconds)
      r.fail(row_at + "/0", "expected a time no earlier than the sample before (" + round_text(s.samples.back().seconds) + " s)");
    s.samples.push_back(sample);
  }

  const bool has_begin = o.contains(QLatin1String("idle_begin_s"));
  const bool has_end = o.contains(QLatin1String("idle_end_s"));
  if (has_begin != has_end)
    r.fail(at + (has_begin ? "/idle_end_s" : "/idle_begin_s"), "expected idle_begin_s and idle_end_s together, found one");
  if (has_begin) {
    s.idle_begin_s = r.number(o, "idle_begin_s", at, 0.0);
    s.idle_end_s = r.number(o, "idle_end_s", at, 0.0);
    if (s.idle_end_s < s.idle_begin_s) r.fail(at + "/idle_end_s", "expected a time no earlier than idle_begin_s");
  } else {
    s.idle_recorded = false;
    s.idle_end_s = s.samples.back().seconds;
    s.idle_begin_s = std::max(s.last_query_end_s, s.idle_end_s - r.number(o, "idle_seconds", at, 0.0));
  }
  return s;
}

std::string stream_title(const Reader& r, const QJsonObject& o, const std::string& at) {
  return round_text(r.number(o, "queries", at)) + " queries (" + r.string(o, "mix", at) + ", " +
         round_text(r.number(o, "query_records", at)) + " records each) arriving at " +
         round_text(r.number(o, "rate_per_second", at)) + " per second, at most " + round_text(r.number(o, "max_in_flight", at)) +
         " in flight, " + round_text(r.number(o, "idle_seconds", at)) + " s idle after the last; RSS every " +
         round_text(r.number(o, "sample_period_ms", at)) + " ms";
}

}  // namespace

AllocatorMemoryView read_allocator_memory(const std::filesystem::path& path) {
  const Reader r(path.string());
  const QJsonDocument doc = r.document();
  QJsonArray results;
  std::string prefix;
  if (doc.isObject()) {
    results.append(doc.object());  // one allocator's result alone: pointers without an index
  } else if (doc.isArray()) {
    results = doc.array();
    prefix = "/";
  } else {
    r.fail("", "expected the output of numatwin validate allocbench --arrivals (an array of results)");
  }
  if (results.isEmpty()) r.fail("", "expected at least one allocator's result, found an empty array");
  AllocatorMemoryView view;
  for (qsizetype i = 0; i < results.size(); ++i) {
    const std::string at = prefix.empty() ? std::string() : prefix + std::to_string(i);
    const QJsonObject o = r.object(results[i], at);
    view.series.push_back(read_series(r, o, at));
    if (i == 0) {  // the stream as the first result ran it
      view.title = stream_title(r, o, at);
      view.idle_seconds = r.number(o, "idle_seconds", at, 0.0);
    }
  }
  return view;
}

}  // namespace numatwin::gui
