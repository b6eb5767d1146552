// Shared by the gui tests: one QGuiApplication per test process (fonts and painting need it;
// the test preset sets QT_QPA_PLATFORM=offscreen, and this falls back to it when unset), and
// paths of the bundled machines.
#pragma once

#include <QGuiApplication>
#include <QImage>
#include <QTemporaryDir>
#include <memory>
#include <string>

#include "numatwin/model/topology.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::gui::testing {

inline QGuiApplication& gui_app() {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "gui_tests";
  static char* argv[] = {name, nullptr};
  // Never destroyed: Qt tears its own globals down at exit first, and a static application
  // destroyed after them crashes. Reachable through this pointer, so not a leak either.
  static QGuiApplication* app = new QGuiApplication(argc, argv);
  return *app;
}

inline std::string bundled(const std::string& name) { return std::string(NUMATWIN_TOPOLOGY_DIR) + "/" + name + ".json"; }

inline std::shared_ptr<const model::Topology> load_bundled(const std::string& name) {
  return std::make_shared<const model::Topology>(model::load_topology(bundled(name)));
}

}  // namespace numatwin::gui::testing
