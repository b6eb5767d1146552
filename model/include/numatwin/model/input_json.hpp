// Checked reading of JSON input files (the io part of model/: docs/architecture.md allows JSON
// only in *_json.* files): a cursor into a parsed document that knows its JSON pointer, so that
// every failure is one InputError naming the file, the field and what was expected. Readers of
// input files (topologies, saved validation reports) check their fields through it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace numatwin::model {

// "an object", "a string", ... for messages.
const char* json_type_name(const nlohmann::json& value);

class JsonReader {
 public:
  // `file` must outlive the reader and every reader made from it.
  JsonReader(const nlohmann::json& value, std::string pointer, const std::string& file)
      : value_(&value), pointer_(std::move(pointer)), file_(&file) {}

  [[noreturn]] void fail(const std::string& expectation) const;

  [[nodiscard]] const std::string& pointer() const { return pointer_; }
  [[nodiscard]] const nlohmann::json& json() const { return *value_; }

  void expect_object(const char* what) const;
  void expect_array(const char* what) const;
  // Rejects any key not in `allowed`, naming the first unknown key and the allowed ones.
  void allow_only(std::initializer_list<std::string_view> allowed) const;

  [[nodiscard]] bool has(const char* key) const { return value_->contains(key); }
  // The member `key`; fails "missing required field" when there is none.
  [[nodiscard]] JsonReader field(const char* key) const;
  [[nodiscard]] JsonReader element(std::size_t index) const;
  [[nodiscard]] std::size_t size() const { return value_->size(); }

  [[nodiscard]] std::string string(bool non_empty) const;
  [[nodiscard]] bool boolean() const;
  [[nodiscard]] double number() const;  // finite
  [[nodiscard]] std::int64_t integer(std::int64_t min_value, std::int64_t max_value) const;
  [[nodiscard]] std::uint64_t unsigned_integer() const;  // any integer in [0, 2^64)
  [[nodiscard]] int small_integer(int min_value) const;  // counts: at most 2^20
  [[nodiscard]] std::vector<std::string> string_list() const;

 private:
  const nlohmann::json* value_;
  std::string pointer_;
  const std::string* file_;
};

}  // namespace numatwin::model
