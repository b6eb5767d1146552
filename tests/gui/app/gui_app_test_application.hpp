// The one QApplication of gui_app_tests (offscreen unless QT_QPA_PLATFORM says otherwise),
// shared by every test file of the binary: an inline function's static is one object across
// translation units, so running the whole binary makes one application, as Qt requires.
#pragma once

#include <QApplication>
#include <QtGlobal>

namespace numatwin::gui::test_support {

inline QApplication& app() {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "gui_app_tests";
  static char* argv[] = {name, nullptr};
  // Never destroyed: Qt tears its own globals down at exit first, and a static application
  // destroyed after them crashes. Reachable through this pointer, so not a leak either.
  static QApplication* instance = new QApplication(argc, argv);
  return *instance;
}

}  // namespace numatwin::gui::test_support
