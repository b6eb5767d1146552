#include "numatwin/gui/validation_report.hpp"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QSet>
#include <cmath>

#include "numatwin/model/input_error.hpp"

namespace numatwin::gui {
namespace {

class Reader {
 public:
  Reader(QString source, QString pointer) : source_(std::move(source)), pointer_(std::move(pointer)) {}

  [[noreturn]] void fail(const QString& field, const QString& expectation) const {
    throw model::InputError(source_.toStdString(), (pointer_ + field).toStdString(), expectation.toStdString());
  }

  void allow_only(const QJsonObject& o, const QSet<QString>& keys) const {
    for (auto it = o.begin(); it != o.end(); ++it) {
      if (!keys.contains(it.key())) fail(QStringLiteral("/") + it.key(), QStringLiteral("an unknown key (allowed: %1)").arg(QStringList(keys.values()).join(QStringLiteral(", "))));
    }
  }

  QString string(const QJsonObject& o, const QString& key, bool required) const {
    const QJsonValue v = o.value(key);
    if (v.isUndefined() && !required) return {};
    if (!v.isString() || (required && v.toString().isEmpty())) fail(QStringLiteral("/") + key, QStringLiteral("expected a non-empty string"));
    return v.toString();
  }

  double number(const QJsonObject& o, const QString& key) const {
    const QJsonValue v = o.value(key);
    if (!v.isDouble() || !std::isfinite(v.toDouble()) || v.toDouble() < 0) fail(QStringLiteral("/") + key, QStringLiteral("expected a number >= 0"));
    return v.toDouble();
  }

  // A measured value: a number >= 0, or null/absent with a non-empty "not_measured" reason.
  std::optional<double> measured(const QJsonObject& o, QString& reason) const {
    const QJsonValue v = o.value(QStringLiteral("measured_gbps"));
    reason = string(o, QStringLiteral("not_measured"), false);
    if (v.isUndefined() || v.isNull()) {
      if (reason.isEmpty()) fail(QStringLiteral("/not_measured"), QStringLiteral("a reason when measured_gbps is absent or null"));
      return std::nullopt;
    }
    if (!v.isDouble() || !std::isfinite(v.toDouble()) || v.toDouble() < 0) fail(QStringLiteral("/measured_gbps"), QStringLiteral("expected a number >= 0 or null"));
    return v.toDouble();
  }

  [[nodiscard]] Reader at(const QString& suffix) const { return Reader(source_, pointer_ + suffix); }

 private:
  QString source_;
  QString pointer_;
};

}  // namespace

std::optional<double> KernelComparison::relative_error() const {
  if (!measured_gbps || *measured_gbps <= 0.0) return std::nullopt;
  return (predicted_gbps - *measured_gbps) / *measured_gbps;
}

std::optional<double> KernelComparison::relative_error_after_fit() const {
  if (!measured_gbps || *measured_gbps <= 0.0 || !predicted_gbps_after_fit) return std::nullopt;
  return (*predicted_gbps_after_fit - *measured_gbps) / *measured_gbps;
}

ValidationReport parse_validation_report(const QByteArray& json_text, const QString& source_name) {
  QJsonParseError error{};
  const QJsonDocument doc = QJsonDocument::fromJson(json_text, &error);
  const Reader root(source_name, QString());
  if (error.error != QJsonParseError::NoError) {
    throw model::InputError(source_name.toStdString(), "",
                            QStringLiteral("not JSON: %1 at offset %2").arg(error.errorString()).arg(error.offset).toStdString());
  }
  if (!doc.isObject()) root.fail(QString(), QStringLiteral("expected a JSON object"));
  const QJsonObject o = doc.object();
  root.allow_only(o, {QStringLiteral("format"), QStringLiteral("format_version"), QStringLiteral("machine"), QStringLiteral("host"),
                      QStringLiteral("kernels"), QStringLiteral("summary"), QStringLiteral("cost_fit"), QStringLiteral("switches"), QStringLiteral("measured_costs")});
  for (const QString& key : {QStringLiteral("summary"), QStringLiteral("cost_fit"), QStringLiteral("switches"), QStringLiteral("measured_costs")}) {
    if (o.contains(key) && !o.value(key).isObject()) root.fail(QStringLiteral("/") + key, QStringLiteral("expected an object"));
  }
  if (o.value(QStringLiteral("format")).toString() != QStringLiteral("numatwin-validation-report")) {
    root.fail(QStringLiteral("/format"), QStringLiteral("expected \"numatwin-validation-report\""));
  }
  if (o.value(QStringLiteral("format_version")).toInt(-1) != 1 || !o.value(QStringLiteral("format_version")).isDouble()) {
    root.fail(QStringLiteral("/format_version"), QStringLiteral("expected 1"));
  }
  ValidationReport report;
  report.machine = root.string(o, QStringLiteral("machine"), true);
  report.host = root.string(o, QStringLiteral("host"), false);
  const QJsonValue kernels = o.value(QStringLiteral("kernels"));
  if (!kernels.isArray()) root.fail(QStringLiteral("/kernels"), QStringLiteral("expected an array"));
  const QJsonArray array = kernels.toArray();
  for (qsizetype k = 0; k < array.size(); ++k) {
    const Reader r = root.at(QStringLiteral("/kernels/%1").arg(k));
    if (!array[k].isObject()) r.fail(QString(), QStringLiteral("expected an object"));
    const QJsonObject ko = array[k].toObject();
    r.allow_only(ko, {QStringLiteral("id"), QStringLiteral("workload"), QStringLiteral("algorithm"), QStringLiteral("sync"),
                      QStringLiteral("threads"), QStringLiteral("predicted_gbps"), QStringLiteral("measured_gbps"),
                      QStringLiteral("not_measured"), QStringLiteral("links"), QStringLiteral("details")});
    KernelComparison kc;
    kc.id = r.string(ko, QStringLiteral("id"), true);
    kc.workload = r.string(ko, QStringLiteral("workload"), true);
    kc.algorithm = r.string(ko, QStringLiteral("algorithm"), false);
    kc.sync = r.string(ko, QStringLiteral("sync"), false);
    const QJsonValue threads = ko.value(QStringLiteral("threads"));
    if (!threads.isDouble() || threads.toDouble() < 1 || threads.toDouble() != std::floor(threads.toDouble()) || threads.toDouble() > 1e6) {
      r.fail(QStringLiteral("/threads"), QStringLiteral("expected an integer >= 1"));
    }
    kc.threads = threads.toInt();
    kc.predicted_gbps = r.number(ko, QStringLiteral("predicted_gbps"));
    kc.measured_gbps = r.measured(ko, kc.not_measured);
    const QJsonValue links = ko.value(QStringLiteral("links"));
    if (!links.isUndefined()) {
      if (!links.isArray()) r.fail(QStringLiteral("/links"), QStringLiteral("expected an array"));
      const QJsonArray la = links.toArray();
      for (qsizetype i = 0; i < la.size(); ++i) {
        const Reader lr = r.at(QStringLiteral("/links/%1").arg(i));
        if (!la[i].isObject()) lr.fail(QString(), QStringLiteral("expected an object"));
        const QJsonObject lo = la[i].toObject();
        lr.allow_only(lo, {QStringLiteral("link"), QStringLiteral("predicted_gbps"), QStringLiteral("measured_gbps"), QStringLiteral("not_measured")});
        LinkTraffic lt;
        lt.link = lr.string(lo, QStringLiteral("link"), true);
        lt.predicted_gbps = lr.number(lo, QStringLiteral("predicted_gbps"));
        lt.measured_gbps = lr.measured(lo, lt.not_measured);
        kc.links.push_back(lt);
      }
    }
    const QJsonValue details = ko.value(QStringLiteral("details"));
    if (!details.isUndefined()) {
      // Free-form run details from `numatwin validate run/suite`; the tab shows the rate the
      // model predicts after the suite's cost fit, when there is one.
      if (!details.isObject()) r.fail(QStringLiteral("/details"), QStringLiteral("expected an object"));
      const QJsonValue after = details.toObject().value(QStringLiteral("predicted_gbps_after_fit"));
      if (!after.isUndefined()) {
        if (!after.isDouble() || !std::isfinite(after.toDouble()) || after.toDouble() < 0)
          r.fail(QStringLiteral("/details/predicted_gbps_after_fit"), QStringLiteral("expected a number >= 0"));
        kc.predicted_gbps_after_fit = after.toDouble();
      }
    }
    report.kernels.push_back(kc);
  }
  return report;
}

ValidationReport load_validation_report(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    throw model::InputError(path.toStdString(), "", ("cannot read the file: " + file.errorString()).toStdString());
  }
  return parse_validation_report(file.readAll(), path);
}

}  // namespace numatwin::gui
