#include "numatwin/model/input_error.hpp"

#include <utility>

namespace numatwin::model {
namespace {

std::string compose(const std::string& file, const std::string& pointer,
                    const std::string& expectation) {
  std::string text = file.empty() ? std::string("<input>") : file;
  if (!pointer.empty()) text.append(": ").append(pointer);
  text.append(": ").append(expectation);
  return text;
}

}  // namespace

InputError::InputError(std::string file, std::string json_pointer, std::string expectation)
    : std::runtime_error(compose(file, json_pointer, expectation)),
      file_(std::move(file)),
      json_pointer_(std::move(json_pointer)),
      expectation_(std::move(expectation)) {}

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace numatwin::model
