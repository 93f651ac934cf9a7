#include "engine/view_metadata.h"

#include <strings.h>

#include <set>

namespace cairn::engine {
namespace {

Status ValidateRepresentations(const Json& reps) {
  if (!reps.is_array()) return Status::InvalidArgument("representations must be an array");
  std::set<std::string> dialects;
  for (const Json& r : reps) {
    ASSIGN_OR_RETURN(std::string type, GetString(r, "type"));
    if (type != "sql") continue;  // other representation types are kept as they are
    RETURN_IF_ERROR(GetString(r, "sql").status());
    ASSIGN_OR_RETURN(std::string dialect, GetString(r, "dialect"));
    std::string lower;
    for (char c : dialect) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!dialects.insert(lower).second) {
      return Status::InvalidArgument(
          "Invalid view version: Cannot add multiple queries for dialect " + lower);
    }
  }
  return Status::OK();
}

}  // namespace

Result<ViewVersion> ViewVersion::FromJson(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("view version must be an object");
  ViewVersion v;
  ASSIGN_OR_RETURN(v.version_id, GetInt32(json, "version-id"));
  ASSIGN_OR_RETURN(v.timestamp_ms, GetInt64(json, "timestamp-ms"));
  ASSIGN_OR_RETURN(v.schema_id, GetInt32(json, "schema-id"));
  ASSIGN_OR_RETURN(v.summary, GetOptStringMap(json, "summary"));
  ASSIGN_OR_RETURN(const Json* reps, GetArray(json, "representations"));
  RETURN_IF_ERROR(ValidateRepresentations(*reps));
  v.representations = *reps;
  ASSIGN_OR_RETURN(v.default_catalog, GetOptString(json, "default-catalog"));
  if (FindField(json, "default-namespace") != nullptr) {
    ASSIGN_OR_RETURN(v.default_namespace, GetStringList(json, "default-namespace"));
  }
  return v;
}

Json ViewVersion::ToJson() const {
  Json j = {{"version-id", version_id},
            {"timestamp-ms", timestamp_ms},
            {"schema-id", schema_id},
            {"summary", summary},
            {"representations", representations},
            {"default-namespace", default_namespace}};
  if (default_catalog) j["default-catalog"] = *default_catalog;
  return j;
}

bool ViewVersion::SameAs(const ViewVersion& o) const {
  return schema_id == o.schema_id && summary == o.summary &&
         representations == o.representations && default_catalog == o.default_catalog &&
         default_namespace == o.default_namespace;
}

const Schema* ViewMetadata::FindSchema(int32_t id) const {
  for (const Schema& s : schemas) {
    if (s.schema_id == id) return &s;
  }
  return nullptr;
}

const ViewVersion* ViewMetadata::FindVersion(int32_t id) const {
  for (const ViewVersion& v : versions) {
    if (v.version_id == id) return &v;
  }
  return nullptr;
}

Result<ViewMetadata> ViewMetadata::FromJson(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("view metadata must be a JSON object");
  ViewMetadata m;
  ASSIGN_OR_RETURN(m.view_uuid, GetString(json, "view-uuid"));
  ASSIGN_OR_RETURN(m.format_version, GetInt32(json, "format-version"));
  if (m.format_version < 1 || m.format_version > kMaxFormatVersion) {
    return Status::InvalidArgument("unsupported view format-version " +
                                   std::to_string(m.format_version));
  }
  ASSIGN_OR_RETURN(m.location, GetString(json, "location"));
  ASSIGN_OR_RETURN(m.properties, GetOptStringMap(json, "properties"));
  ASSIGN_OR_RETURN(const Json* schemas, GetArray(json, "schemas"));
  for (const Json& s : *schemas) {
    ASSIGN_OR_RETURN(Schema schema, Schema::FromJson(s));
    m.schemas.push_back(std::move(schema));
  }
  ASSIGN_OR_RETURN(m.current_version_id, GetInt32(json, "current-version-id"));
  ASSIGN_OR_RETURN(const Json* versions, GetArray(json, "versions"));
  for (const Json& v : *versions) {
    ASSIGN_OR_RETURN(ViewVersion version, ViewVersion::FromJson(v));
    m.versions.push_back(std::move(version));
  }
  ASSIGN_OR_RETURN(const Json* log, GetArray(json, "version-log"));
  for (const Json& e : *log) {
    ViewLogEntry entry;
    ASSIGN_OR_RETURN(entry.timestamp_ms, GetInt64(e, "timestamp-ms"));
    ASSIGN_OR_RETURN(entry.version_id, GetInt32(e, "version-id"));
    m.version_log.push_back(entry);
  }
  const ViewVersion* current = m.CurrentVersion();
  if (current == nullptr) {
    return Status::InvalidArgument("current-version-id " + std::to_string(m.current_version_id) +
                                   " is not among the versions");
  }
  if (m.FindSchema(current->schema_id) == nullptr) {
    return Status::InvalidArgument("the current version's schema-id " +
                                   std::to_string(current->schema_id) +
                                   " is not among the schemas");
  }
  return m;
}

Result<ViewMetadata> ViewMetadata::FromJsonText(std::string_view text) {
  ASSIGN_OR_RETURN(Json json, ParseJson(text));
  return FromJson(json);
}

Json ViewMetadata::ToJson() const {
  Json schema_list = Json::array();
  for (const Schema& s : schemas) schema_list.push_back(s.ToJson());
  Json version_list = Json::array();
  for (const ViewVersion& v : versions) version_list.push_back(v.ToJson());
  Json log = Json::array();
  for (const ViewLogEntry& e : version_log) {
    log.push_back({{"timestamp-ms", e.timestamp_ms}, {"version-id", e.version_id}});
  }
  return {{"view-uuid", view_uuid},
          {"format-version", format_version},
          {"location", location},
          {"properties", properties},
          {"schemas", std::move(schema_list)},
          {"current-version-id", current_version_id},
          {"versions", std::move(version_list)},
          {"version-log", std::move(log)}};
}

}  // namespace cairn::engine
