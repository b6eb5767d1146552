#include "numatwin/gui/image_export.hpp"

#include <QFileInfo>
#include <QSaveFile>
#include <QSvgGenerator>
#include <stdexcept>

namespace numatwin::gui {
namespace {

[[noreturn]] void fail(const QString& path, const QString& why) {
  throw std::runtime_error(QStringLiteral("%1: cannot write: %2").arg(path, why).toStdString());
}

}  // namespace

QImage render_image(const InterconnectRenderer& renderer, QSize size) {
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(renderer.options().background);
  QPainter painter(&image);
  renderer.paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
  painter.end();
  return image;
}

void save_png(const PaintFunction& paint, QSize size, const QString& path) {
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) fail(path, file.errorString());
  if (!image.save(&file, "PNG")) fail(path, QStringLiteral("PNG encoding failed"));
  if (!file.commit()) fail(path, file.errorString());
}

void save_svg(const PaintFunction& paint, QSize size, const QString& path, const QString& title) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) fail(path, file.errorString());
  {
    QSvgGenerator generator;
    generator.setOutputDevice(&file);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("numatwin interconnect view"));
    QPainter painter;
    if (!painter.begin(&generator)) fail(path, QStringLiteral("SVG generator did not start"));
    paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
    painter.end();
  }
  if (!file.commit()) fail(path, file.errorString());
}

void save_picture(const PaintFunction& paint, QSize size, const QString& path, const QString& title) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QStringLiteral("svg")) {
    save_svg(paint, size, path, title);
  } else if (suffix == QStringLiteral("png")) {
    save_png(paint, size, path);
  } else {
    throw std::invalid_argument(QStringLiteral("%1: expected a file name ending in .png or .svg").arg(path).toStdString());
  }
}

void save_picture(const InterconnectRenderer& renderer, QSize size, const QString& path) {
  save_picture([&renderer](QPainter& p, const QRectF& r) { renderer.paint(p, r); }, size, path,
               QString::fromStdString(renderer.topology().name));
}

}  // namespace numatwin::gui
