// Reading the GUI's JSON inputs (a CLI's --json output: the adaptive run, the allocator memory
// run) with one error per problem naming the file and the JSON pointer (model::InputError).
// Private to gui/src.
#pragma once

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QString>
#include <cmath>
#include <string>
#include <utility>

#include "numatwin/model/input_error.hpp"

namespace numatwin::gui {

class QJsonReader {
 public:
  explicit QJsonReader(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& pointer, const std::string& expectation) const {
    throw model::InputError(file_, pointer, expectation);
  }
  // The file's JSON document (any error: the file, pointer "").
  [[nodiscard]] QJsonDocument document() const {
    QFile file(QString::fromStdString(file_));
    if (!file.open(QIODevice::ReadOnly)) fail("", "cannot open the file");
    QJsonParseError error{};
    QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError) fail("", "not valid JSON: " + error.errorString().toStdString());
    return doc;
  }
  [[nodiscard]] QJsonValue required(const QJsonObject& o, const char* key, const std::string& at) const {
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined()) fail(at + "/" + key, "expected this required field, found nothing");
    return v;
  }
  // A finite number >= low.
  [[nodiscard]] double number(const QJsonObject& o, const char* key, const std::string& at, double low = -1e300) const {
    const QJsonValue v = required(o, key, at);
    if (!v.isDouble() || !std::isfinite(v.toDouble())) fail(at + "/" + key, "expected a number");
    if (v.toDouble() < low) {
      fail(at + "/" + key, "expected a number >= " + QString::number(low, 'g', 6).toStdString() + ", found " +
                               QString::number(v.toDouble(), 'g', 6).toStdString());
    }
    return v.toDouble();
  }
  [[nodiscard]] std::string string(const QJsonObject& o, const char* key, const std::string& at) const {
    const QJsonValue v = required(o, key, at);
    if (!v.isString()) fail(at + "/" + key, "expected a string");
    return v.toString().toStdString();
  }
  [[nodiscard]] QJsonArray array(const QJsonObject& o, const char* key, const std::string& at) const {
    const QJsonValue v = required(o, key, at);
    if (!v.isArray()) fail(at + "/" + key, "expected an array");
    return v.toArray();
  }
  [[nodiscard]] QJsonObject object(const QJsonValue& v, const std::string& at) const {
    if (!v.isObject()) fail(at, "expected an object");
    return v.toObject();
  }

 private:
  std::string file_;
};

}  // namespace numatwin::gui
