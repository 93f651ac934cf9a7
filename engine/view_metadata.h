#pragma once

// ViewMetadata: one Iceberg view metadata document (view spec, format version 1), with JSON
// serde, and ViewVersion, one version of the view's query.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/json_util.h"
#include "engine/schema.h"

namespace cairn::engine {

struct ViewVersion {
  int32_t version_id = 0;
  int64_t timestamp_ms = 0;
  int32_t schema_id = 0;  // -1 in an update means "the last added schema"
  Properties summary;
  Json representations = Json::array();  // [{"type": "sql", "sql": ..., "dialect": ...}]
  std::optional<std::string> default_catalog;
  std::vector<std::string> default_namespace;

  static Result<ViewVersion> FromJson(const Json& json);
  Json ToJson() const;
  // Same query, schema, defaults and summary (ids and timestamps aside).
  bool SameAs(const ViewVersion& other) const;
};

struct ViewLogEntry {
  int64_t timestamp_ms = 0;
  int32_t version_id = 0;
};

struct ViewMetadata {
  static constexpr int kMaxFormatVersion = 1;

  std::string view_uuid;
  int format_version = 1;
  std::string location;
  std::vector<Schema> schemas;
  int32_t current_version_id = 0;
  std::vector<ViewVersion> versions;
  std::vector<ViewLogEntry> version_log;
  Properties properties;

  const Schema* FindSchema(int32_t id) const;
  const ViewVersion* FindVersion(int32_t id) const;
  const ViewVersion* CurrentVersion() const { return FindVersion(current_version_id); }

  // Parses and validates: InvalidArgument naming a missing field, an unknown current version
  // or a current version whose schema is not among the schemas.
  static Result<ViewMetadata> FromJson(const Json& json);
  static Result<ViewMetadata> FromJsonText(std::string_view text);
  Json ToJson() const;
};

}  // namespace cairn::engine
