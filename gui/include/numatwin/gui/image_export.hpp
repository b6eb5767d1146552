// Rendering to files without a window: the interconnect (or any painter callback, e.g. a
// chart's scene) to a PNG through QImage or to an SVG through QSvgGenerator. Files are written
// atomically (QSaveFile).
#pragma once

#include <QImage>
#include <QPainter>
#include <QSize>
#include <QString>
#include <functional>

#include "numatwin/gui/interconnect_renderer.hpp"

namespace numatwin::gui {

using PaintFunction = std::function<void(QPainter&, const QRectF&)>;

QImage render_image(const InterconnectRenderer& renderer, QSize size);

// Throws std::runtime_error naming the path when the file cannot be written.
void save_png(const PaintFunction& paint, QSize size, const QString& path);
void save_svg(const PaintFunction& paint, QSize size, const QString& path, const QString& title);
// By extension: ".svg" writes SVG, anything else PNG ("" / ".png"). Throws std::invalid_argument
// for an extension that is neither .png nor .svg.
void save_picture(const PaintFunction& paint, QSize size, const QString& path, const QString& title);
void save_picture(const InterconnectRenderer& renderer, QSize size, const QString& path);

}  // namespace numatwin::gui
