#pragma once

// Exception-free access to nlohmann::json values.
//
// Every accessor names the field in its error so that a 400 tells the client exactly what is
// wrong ("missing required field 'schema'", "field 'name' must be a string"). Optional
// accessors treat an absent key and a JSON null alike.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/status.h"

namespace cairn::engine {

using Json = nlohmann::json;
using Properties = std::map<std::string, std::string>;

// Parses `text`; InvalidArgument naming the position on malformed input.
Result<Json> ParseJson(std::string_view text);

// REQUIRES for all: `obj` is any Json; a non-object yields InvalidArgument.
Result<const Json*> GetField(const Json& obj, std::string_view key);  // required, non-null
const Json* FindField(const Json& obj, std::string_view key);  // nullptr when absent or null

Result<std::string> GetString(const Json& obj, std::string_view key);
Result<std::optional<std::string>> GetOptString(const Json& obj, std::string_view key);
Result<int64_t> GetInt64(const Json& obj, std::string_view key);
Result<std::optional<int64_t>> GetOptInt64(const Json& obj, std::string_view key);
Result<int32_t> GetInt32(const Json& obj, std::string_view key);
Result<std::optional<int32_t>> GetOptInt32(const Json& obj, std::string_view key);
Result<bool> GetBool(const Json& obj, std::string_view key);
Result<std::optional<bool>> GetOptBool(const Json& obj, std::string_view key);
Result<const Json*> GetObject(const Json& obj, std::string_view key);
Result<const Json*> GetArray(const Json& obj, std::string_view key);
// Absent or null: an empty map. Values must be strings.
Result<Properties> GetOptStringMap(const Json& obj, std::string_view key);
Result<std::vector<std::string>> GetStringList(const Json& obj, std::string_view key);
Result<std::vector<int32_t>> GetOptInt32List(const Json& obj, std::string_view key);

// Converts a value (not a field) with the same rules; `what` names it in errors.
Result<int64_t> AsInt64(const Json& value, std::string_view what);
Result<std::string> AsString(const Json& value, std::string_view what);
Result<Properties> AsStringMap(const Json& value, std::string_view what);
Result<std::vector<std::string>> AsStringList(const Json& value, std::string_view what);

// Append one JSON value to `out` as nlohmann's dump() would spell it, for documents written
// as text rather than through a tree: an integer, and a string (quoted and escaped).
void AppendJsonInt(int64_t value, std::string* out);
void AppendJsonString(std::string_view value, std::string* out);

}  // namespace cairn::engine
