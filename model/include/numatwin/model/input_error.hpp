// The one error type for bad input files: it names the file, the JSON pointer of the
// offending field and what was expected. Libraries throw it; only main() decides to exit.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace numatwin::model {

class InputError : public std::runtime_error {
 public:
  // what() reads "<file>: <pointer>: <expectation>" (the pointer part is omitted when empty).
  InputError(std::string file, std::string json_pointer, std::string expectation);

  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] const std::string& json_pointer() const { return json_pointer_; }
  [[nodiscard]] const std::string& expectation() const { return expectation_; }

 private:
  std::string file_;
  std::string json_pointer_;
  std::string expectation_;
};

// One reference token of a JSON pointer (RFC 6901): "~" becomes "~0" and "/" becomes "~1".
std::string escape_pointer_token(std::string_view token);

}  // namespace numatwin::model
