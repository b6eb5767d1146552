// Reading `numatwin adaptive --json` output for the adaptive view (adaptive_timeline.hpp): the
// fields it draws (scenario, topology, sockets, timeline[].{begin_s, end_s, queries_per_s,
// socket_cpu, socket_memory_utilisation}, placer_decisions[].{decided_s, done_s, action, table,
// from, to, and if present group, bytes_copied, tables[].{table, bytes_copied}}); other fields are ignored (the CLI's output grows). Every error names the file and
// the JSON pointer.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include "numatwin/gui/adaptive_timeline.hpp"
#include "numatwin/model/input_error.hpp"
#include "qjson_reader.hpp"

namespace numatwin::gui {
namespace {

using Reader = QJsonReader;

// One number per socket at o[key].
std::vector<double> shares(const QJsonReader& r, const QJsonObject& o, const char* key, const std::string& at, std::size_t sockets) {
  const QJsonArray a = r.array(o, key, at);
  if (static_cast<std::size_t>(a.size()) != sockets) {
    r.fail(at + "/" + key, "expected one value per socket (" + std::to_string(sockets) + "), found " + std::to_string(a.size()));
  }
  std::vector<double> out;
  for (qsizetype i = 0; i < a.size(); ++i) {
    if (!a[i].isDouble()) r.fail(at + "/" + key + "/" + std::to_string(i), "expected a number");
    out.push_back(a[i].toDouble());
  }
  return out;
}

}  // namespace

AdaptiveTimelineView read_adaptive_timeline(const std::filesystem::path& path) {
  const Reader r(path.string());
  const QJsonDocument doc = r.document();
  if (!doc.isObject())
    r.fail("", "expected a JSON object (the output of numatwin adaptive --json)");
  const QJsonObject root = doc.object();
  AdaptiveTimelineView view;
  view.title = r.string(root, "scenario", "") + " on " + r.string(root, "topology", "");
  const QJsonArray sockets = r.array(root, "sockets", "");
  for (qsizetype i = 0; i < sockets.size(); ++i) {
    if (!sockets[i].isString())
      r.fail("/sockets/" + std::to_string(i), "expected a socket id (a string)");
    view.sockets.push_back(sockets[i].toString().toStdString());
  }
  if (view.sockets.empty()) r.fail("/sockets", "expected at least one socket");
  const QJsonArray timeline = r.array(root, "timeline", "");
  for (qsizetype i = 0; i < timeline.size(); ++i) {
    const std::string at = "/timeline/" + std::to_string(i);
    const QJsonObject p = r.object(timeline[i], at);
    AdaptiveTimelineView::Bin bin;
    bin.begin_s = r.number(p, "begin_s", at);
    bin.end_s = r.number(p, "end_s", at);
    if (!(bin.end_s > bin.begin_s)) r.fail(at + "/end_s", "expected a time after begin_s");
    bin.queries_per_s = r.number(p, "queries_per_s", at);
    bin.cpu = shares(r, p, "socket_cpu", at, view.sockets.size());
    bin.memory = shares(r, p, "socket_memory_utilisation", at, view.sockets.size());
    view.bins.push_back(std::move(bin));
  }
  const QJsonArray decisions = r.array(root, "placer_decisions", "");
  for (qsizetype i = 0; i < decisions.size(); ++i) {
    const std::string at = "/placer_decisions/" + std::to_string(i);
    const QJsonObject d = r.object(decisions[i], at);
    AdaptiveTimelineView::Decision decision;
    decision.decided_s = r.number(d, "decided_s", at);
    const QJsonValue done = r.required(d, "done_s", at);
    decision.done_s = done.isNull() ? -1.0 : r.number(d, "done_s", at);
    decision.action = r.string(d, "action", at);
    if (decision.action != "move" && decision.action != "partition" && decision.action != "merge") {
      r.fail(at + "/action",
             "expected move, partition or merge, found \"" + decision.action + "\"");
    }
    decision.table = r.string(d, "table", at);
    const QJsonValue from = r.required(d, "from", at);
    decision.from = from.isNull() ? std::string() : r.string(d, "from", at);
    decision.to = r.string(d, "to", at);
    // Optional (runs written before table groups have none): the group, the bytes copied in
    // all and per table.
    if (d.contains(QLatin1String("group")) && !d.value(QLatin1String("group")).isNull())
      decision.group = r.string(d, "group", at);
    if (d.contains(QLatin1String("bytes_copied"))) decision.bytes_copied = r.number(d, "bytes_copied", at);
    if (d.contains(QLatin1String("tables"))) {
      const QJsonArray tables = r.array(d, "tables", at);
      for (qsizetype k = 0; k < tables.size(); ++k) {
        const std::string tat = at + "/tables/" + std::to_string(k);
        const QJsonObject t = r.object(tables[k], tat);
        decision.tables.emplace_back(r.string(t, "table", tat), r.number(t, "bytes_copied", tat));
      }
    }
    view.decisions.push_back(std::move(decision));
  }
  return view;
}

}  // namespace numatwin::gui
