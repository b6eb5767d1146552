#include "numatwin/model/input_json.hpp"

#include <cmath>
#include <limits>

#include "numatwin/model/input_error.hpp"

namespace numatwin::model {

using Json = nlohmann::json;

const char* json_type_name(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number";
    default: return "an unsupported value";
  }
}

void JsonReader::fail(const std::string& expectation) const { throw InputError(*file_, pointer_, expectation); }

void JsonReader::expect_object(const char* what) const {
  if (!value_->is_object()) fail(std::string("expected ") + what + " (a JSON object), found " + json_type_name(*value_));
}

void JsonReader::expect_array(const char* what) const {
  if (!value_->is_array()) fail(std::string("expected ") + what + " (a JSON array), found " + json_type_name(*value_));
}

void JsonReader::allow_only(std::initializer_list<std::string_view> allowed) const {
  for (const auto& item : value_->items()) {
    bool known = false;
    for (std::string_view key : allowed) known = known || item.key() == key;
    if (!known) {
      std::string list;
      for (std::string_view key : allowed) {
        if (!list.empty()) list += ", ";
        list += key;
      }
      JsonReader(item.value(), pointer_ + "/" + escape_pointer_token(item.key()), *file_)
          .fail("unknown field \"" + item.key() + "\"; expected one of: " + list);
    }
  }
}

JsonReader JsonReader::field(const char* key) const {
  auto it = value_->find(key);
  const std::string pointer = pointer_ + "/" + escape_pointer_token(key);
  if (it == value_->end()) JsonReader(*value_, pointer, *file_).fail("missing required field");
  return JsonReader(*it, pointer, *file_);
}

JsonReader JsonReader::element(std::size_t index) const {
  return JsonReader((*value_)[index], pointer_ + "/" + std::to_string(index), *file_);
}

std::string JsonReader::string(bool non_empty) const {
  if (!value_->is_string()) fail(std::string("expected a string, found ") + json_type_name(*value_));
  std::string text = value_->get<std::string>();
  if (non_empty && text.empty()) fail("expected a non-empty string");
  return text;
}

bool JsonReader::boolean() const {
  if (!value_->is_boolean()) fail(std::string("expected true or false, found ") + json_type_name(*value_));
  return value_->get<bool>();
}

double JsonReader::number() const {
  if (!value_->is_number()) fail(std::string("expected a number, found ") + json_type_name(*value_));
  const double x = value_->get<double>();
  if (!std::isfinite(x)) fail("expected a finite number");
  return x;
}

std::int64_t JsonReader::integer(std::int64_t min_value, std::int64_t max_value) const {
  std::int64_t x = 0;
  if (value_->is_number_unsigned()) {
    const auto u = value_->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail("expected an integer at most " + std::to_string(max_value));
    }
    x = static_cast<std::int64_t>(u);
  } else if (value_->is_number_integer()) {
    x = value_->get<std::int64_t>();
  } else {
    fail(std::string("expected an integer, found ") + json_type_name(*value_));
  }
  if (x < min_value) fail("expected an integer >= " + std::to_string(min_value) + ", found " + std::to_string(x));
  if (x > max_value) fail("expected an integer <= " + std::to_string(max_value) + ", found " + std::to_string(x));
  return x;
}

std::uint64_t JsonReader::unsigned_integer() const {
  if (value_->is_number_unsigned()) return value_->get<std::uint64_t>();
  if (value_->is_number_integer() && value_->get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(value_->get<std::int64_t>());
  fail(std::string("expected an integer >= 0, found ") + json_type_name(*value_));
}

int JsonReader::small_integer(int min_value) const {
  // Counts (cores, levels) stay far below this; the bound keeps products in range.
  return static_cast<int>(integer(min_value, 1 << 20));
}

std::vector<std::string> JsonReader::string_list() const {
  expect_array("a list of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < size(); ++i) out.push_back(element(i).string(false));
  return out;
}

}  // namespace numatwin::model
