#include "engine/json_util.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace cairn::engine {
namespace {

std::string Quote(std::string_view key) { return "'" + std::string(key) + "'"; }

Status TypeError(std::string_view what, const char* expected) {
  return Status::InvalidArgument(std::string(what) + " must be " + expected);
}

}  // namespace

Result<Json> ParseJson(std::string_view text) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("malformed JSON");
  return j;
}

const Json* FindField(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<const Json*> GetField(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return Status::InvalidArgument("expected a JSON object");
  const Json* v = FindField(obj, key);
  if (v == nullptr) return Status::InvalidArgument("missing required field " + Quote(key));
  return v;
}

Result<int64_t> AsInt64(const Json& value, std::string_view what) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return TypeError(what, "a 64-bit integer");
    }
    return value.get<int64_t>();
  }
  return TypeError(what, "an integer");
}

Result<std::string> AsString(const Json& value, std::string_view what) {
  if (!value.is_string()) return TypeError(what, "a string");
  return value.get<std::string>();
}

Result<Properties> AsStringMap(const Json& value, std::string_view what) {
  if (!value.is_object()) return TypeError(what, "an object of strings");
  Properties out;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!it->is_string()) {
      return TypeError(std::string(what) + " value of " + Quote(it.key()), "a string");
    }
    out.emplace(it.key(), it->get<std::string>());
  }
  return out;
}

Result<std::vector<std::string>> AsStringList(const Json& value, std::string_view what) {
  if (!value.is_array()) return TypeError(what, "an array of strings");
  std::vector<std::string> out;
  out.reserve(value.size());
  for (const Json& e : value) {
    if (!e.is_string()) return TypeError(std::string(what) + " elements", "strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

Result<std::string> GetString(const Json& obj, std::string_view key) {
  ASSIGN_OR_RETURN(const Json* v, GetField(obj, key));
  return AsString(*v, "field " + Quote(key));
}

Result<std::optional<std::string>> GetOptString(const Json& obj, std::string_view key) {
  const Json* v = FindField(obj, key);
  if (v == nullptr) return std::optional<std::string>();
  ASSIGN_OR_RETURN(std::string s, AsString(*v, "field " + Quote(key)));
  return std::optional<std::string>(std::move(s));
}

Result<int64_t> GetInt64(const Json& obj, std::string_view key) {
  ASSIGN_OR_RETURN(const Json* v, GetField(obj, key));
  return AsInt64(*v, "field " + Quote(key));
}

Result<std::optional<int64_t>> GetOptInt64(const Json& obj, std::string_view key) {
  const Json* v = FindField(obj, key);
  if (v == nullptr) return std::optional<int64_t>();
  ASSIGN_OR_RETURN(int64_t n, AsInt64(*v, "field " + Quote(key)));
  return std::optional<int64_t>(n);
}

Result<int32_t> GetInt32(const Json& obj, std::string_view key) {
  ASSIGN_OR_RETURN(int64_t n, GetInt64(obj, key));
  if (n < std::numeric_limits<int32_t>::min() || n > std::numeric_limits<int32_t>::max()) {
    return TypeError("field " + Quote(key), "a 32-bit integer");
  }
  return static_cast<int32_t>(n);
}

Result<std::optional<int32_t>> GetOptInt32(const Json& obj, std::string_view key) {
  if (FindField(obj, key) == nullptr) return std::optional<int32_t>();
  ASSIGN_OR_RETURN(int32_t n, GetInt32(obj, key));
  return std::optional<int32_t>(n);
}

Result<bool> GetBool(const Json& obj, std::string_view key) {
  ASSIGN_OR_RETURN(const Json* v, GetField(obj, key));
  if (!v->is_boolean()) return TypeError("field " + Quote(key), "a boolean");
  return v->get<bool>();
}

Result<std::optional<bool>> GetOptBool(const Json& obj, std::string_view key) {
  if (FindField(obj, key) == nullptr) return std::optional<bool>();
  ASSIGN_OR_RETURN(bool b, GetBool(obj, key));
  return std::optional<bool>(b);
}

Result<const Json*> GetObject(const Json& obj, std::string_view key) {
  ASSIGN_OR_RETURN(const Json* v, GetField(obj, key));
  if (!v->is_object()) return TypeError("field " + Quote(key), "an object");
  return v;
}

Result<const Json*> GetArray(const Json& obj, std::string_view key) {
  ASSIGN_OR_RETURN(const Json* v, GetField(obj, key));
  if (!v->is_array()) return TypeError("field " + Quote(key), "an array");
  return v;
}

Result<Properties> GetOptStringMap(const Json& obj, std::string_view key) {
  const Json* v = FindField(obj, key);
  if (v == nullptr) return Properties();
  return AsStringMap(*v, "field " + Quote(key));
}

Result<std::vector<std::string>> GetStringList(const Json& obj, std::string_view key) {
  ASSIGN_OR_RETURN(const Json* v, GetField(obj, key));
  return AsStringList(*v, "field " + Quote(key));
}

Result<std::vector<int32_t>> GetOptInt32List(const Json& obj, std::string_view key) {
  std::vector<int32_t> out;
  const Json* v = FindField(obj, key);
  if (v == nullptr) return out;
  if (!v->is_array()) return TypeError("field " + Quote(key), "an array of integers");
  for (const Json& e : *v) {
    ASSIGN_OR_RETURN(int64_t n, AsInt64(e, "elements of " + Quote(key)));
    out.push_back(static_cast<int32_t>(n));
  }
  return out;
}

void AppendJsonInt(int64_t value, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out->append(buf, end);
}

void AppendJsonString(std::string_view value, std::string* out) {
  bool plain = std::all_of(value.begin(), value.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\';
  });
  if (!plain) {  // rare in practice (paths, names): let the library escape it
    *out += Json(value).dump(-1, ' ', false, Json::error_handler_t::replace);
    return;
  }
  *out += '"';
  *out += value;
  *out += '"';
}

}  // namespace cairn::engine
