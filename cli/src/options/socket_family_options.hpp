// `topo generate` options of the socket families (intel-snc, amd-nps) and their CXL expanders:
// each option given on the command line replaces the family's default
// (model::socket_family_defaults, whose sources are in model/src/generators_sockets.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "numatwin/model/generators.hpp"

namespace numatwin::cli {

class SocketFamilyOptions {
 public:
  explicit SocketFamilyOptions(CLI::App* generate);
  // The family's defaults for the given --snc/--nps, with every given option applied. Throws
  // std::invalid_argument for --snc with amd-nps and --nps with intel-snc.
  [[nodiscard]] model::SocketFamilyParams apply(model::TopologyFamily family) const;
  // Throws std::invalid_argument naming the first socket-family option given to another family.
  void reject_for(const std::string& family) const;

 private:
  struct Value {
    CLI::Option* option;
    std::function<void(model::SocketFamilyParams&)> set;
  };
  template <typename T>
  void add(CLI::App* app, const std::string& name, const std::string& help,
           std::function<void(model::SocketFamilyParams&, T)> set);

  std::vector<Value> values_;
  CLI::Option* snc_ = nullptr;
  CLI::Option* nps_ = nullptr;
  std::shared_ptr<int> snc_value_ = std::make_shared<int>(1);
  std::shared_ptr<int> nps_value_ = std::make_shared<int>(1);
};

std::shared_ptr<SocketFamilyOptions> add_socket_family_options(CLI::App* generate);

}  // namespace numatwin::cli
