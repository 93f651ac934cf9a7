#include "engine/view_builder.h"

#include <algorithm>

namespace cairn::engine {
namespace {

using TK = TableUpdate::Kind;

bool SharedWithViews(TK kind) {
  return kind == TK::kAssignUuid || kind == TK::kUpgradeFormatVersion || kind == TK::kAddSchema ||
         kind == TK::kSetLocation || kind == TK::kSetProperties || kind == TK::kRemoveProperties;
}

}  // namespace

Result<ViewUpdate> ViewUpdate::FromJson(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("each update must be a JSON object");
  ASSIGN_OR_RETURN(std::string action, GetString(json, "action"));
  ViewUpdate u;
  if (action == "add-view-version") {
    u.kind = Kind::kAddViewVersion;
    ASSIGN_OR_RETURN(const Json* v, GetObject(json, "view-version"));
    auto version = ViewVersion::FromJson(*v);
    if (!version.ok()) return version.status().WithPrefix("invalid add-view-version update");
    u.version = std::move(version).value();
    return u;
  }
  if (action == "set-current-view-version") {
    u.kind = Kind::kSetCurrentViewVersion;
    auto id = GetInt32(json, "view-version-id");
    if (!id.ok()) return id.status().WithPrefix("invalid set-current-view-version update");
    u.version_id = *id;
    return u;
  }
  auto shared = TableUpdate::FromJson(json);
  if (!shared.ok() && shared.status().message().rfind("unknown table update action", 0) == 0) {
    return Status::InvalidArgument("unknown view update action '" + action + "'");
  }
  if (!shared.ok()) return shared.status();
  if (!SharedWithViews(shared->kind)) {
    return Status::InvalidArgument("update action '" + action + "' does not apply to views");
  }
  u.shared = std::move(shared).value();
  return u;
}

Result<std::vector<ViewUpdate>> ParseViewUpdates(const Json& array) {
  if (!array.is_array()) return Status::InvalidArgument("field 'updates' must be an array");
  std::vector<ViewUpdate> out;
  for (const Json& j : array) {
    ASSIGN_OR_RETURN(ViewUpdate u, ViewUpdate::FromJson(j));
    out.push_back(std::move(u));
  }
  return out;
}

Result<ViewRequirement> ViewRequirement::FromJson(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("each requirement must be a JSON object");
  ASSIGN_OR_RETURN(std::string type, GetString(json, "type"));
  if (type != "assert-view-uuid") {
    return Status::InvalidArgument("unknown view requirement type '" + type + "'");
  }
  ViewRequirement r;
  auto uuid = GetString(json, "uuid");
  if (!uuid.ok()) return uuid.status().WithPrefix("invalid assert-view-uuid requirement");
  r.uuid = *uuid;
  return r;
}

Status ViewRequirement::Check(const ViewMetadata& base) const {
  if (uuid == base.view_uuid) return Status::OK();
  return Status::CommitFailed("Requirement failed: view UUID does not match: expected " +
                              base.view_uuid + " != " + uuid);
}

Result<std::vector<ViewRequirement>> ParseViewRequirements(const Json& array) {
  if (!array.is_array()) return Status::InvalidArgument("field 'requirements' must be an array");
  std::vector<ViewRequirement> out;
  for (const Json& j : array) {
    ASSIGN_OR_RETURN(ViewRequirement r, ViewRequirement::FromJson(j));
    out.push_back(std::move(r));
  }
  return out;
}

ViewMetadata ViewBuilder::Empty() {
  ViewMetadata m;
  m.current_version_id = -1;
  return m;
}

Status ViewBuilder::ApplyAll(const std::vector<ViewUpdate>& updates) {
  for (const ViewUpdate& u : updates) RETURN_IF_ERROR(Apply(u));
  return Status::OK();
}

Status ViewBuilder::Apply(const ViewUpdate& u) {
  if (u.kind == ViewUpdate::Kind::kAddViewVersion) return AddVersion(*u.version);
  if (u.kind == ViewUpdate::Kind::kSetCurrentViewVersion) return SetCurrentVersion(u.version_id);
  const TableUpdate& t = u.shared;
  switch (t.kind) {
    case TK::kAssignUuid:
      if (t.text != m_.view_uuid) {
        m_.view_uuid = t.text;
        changed_ = true;
      }
      return Status::OK();
    case TK::kUpgradeFormatVersion:
      if (t.number > ViewMetadata::kMaxFormatVersion) {
        return Status::InvalidArgument("Cannot upgrade view to unsupported format version: v" +
                                       std::to_string(t.number));
      }
      if (t.number < m_.format_version) {
        return Status::InvalidArgument("Cannot downgrade v" + std::to_string(m_.format_version) +
                                       " view to v" + std::to_string(t.number));
      }
      return Status::OK();
    case TK::kAddSchema:
      return AddSchema(*t.schema);
    case TK::kSetLocation:
      if (t.text != m_.location) {
        m_.location = t.text;
        changed_ = true;
      }
      return Status::OK();
    case TK::kSetProperties:
      for (const auto& [k, v] : t.updates) m_.properties[k] = v;
      changed_ = true;
      return Status::OK();
    case TK::kRemoveProperties:
      for (const std::string& k : t.removals) m_.properties.erase(k);
      changed_ = true;
      return Status::OK();
    default:
      return Status::InvalidArgument("update action '" + t.action + "' does not apply to views");
  }
}

Status ViewBuilder::AddSchema(const Schema& requested) {
  int32_t new_id = 0;
  for (const Schema& s : m_.schemas) {
    if (s.SameStructure(requested)) {
      last_added_schema_ = s.schema_id;
      return Status::OK();
    }
    new_id = std::max(new_id, s.schema_id + 1);
  }
  Schema schema = requested;
  schema.schema_id = new_id;
  m_.schemas.push_back(std::move(schema));
  last_added_schema_ = new_id;
  changed_ = true;
  return Status::OK();
}

Status ViewBuilder::AddVersion(const ViewVersion& requested) {
  ViewVersion version = requested;
  if (version.schema_id == -1) {
    if (!last_added_schema_) {
      return Status::InvalidArgument("Cannot set last added schema: no schema has been added");
    }
    version.schema_id = *last_added_schema_;
  }
  if (m_.FindSchema(version.schema_id) == nullptr) {
    return Status::InvalidArgument("Cannot add version with unknown schema: " +
                                   std::to_string(version.schema_id));
  }
  int32_t new_id = version.version_id;
  for (const ViewVersion& v : m_.versions) {
    if (v.SameAs(version)) {
      last_added_version_ = v.version_id;
      return Status::OK();
    }
    new_id = std::max(new_id, v.version_id + 1);
  }
  version.version_id = new_id;
  m_.versions.push_back(std::move(version));
  last_added_version_ = new_id;
  added_versions_.insert(new_id);
  changed_ = true;
  return Status::OK();
}

Status ViewBuilder::SetCurrentVersion(int32_t id) {
  if (id == -1) {
    if (!last_added_version_) {
      return Status::InvalidArgument("Cannot set last version: no version has been added");
    }
    id = *last_added_version_;
  }
  const ViewVersion* version = m_.FindVersion(id);
  if (version == nullptr) {
    return Status::InvalidArgument("Cannot set current version to unknown version: " +
                                   std::to_string(id));
  }
  if (id == m_.current_version_id) return Status::OK();
  m_.current_version_id = id;
  int64_t ts = added_versions_.count(id) ? version->timestamp_ms : now_ms_;
  m_.version_log.push_back({ts, id});
  changed_ = true;
  return Status::OK();
}

void ViewBuilder::ExpireVersions() {
  int history = kDefaultHistorySize;
  if (auto it = m_.properties.find(kHistorySize); it != m_.properties.end()) {
    try {
      history = std::max(1, std::stoi(it->second));
    } catch (...) {  // std::stoi throws on garbage: keep the default
    }
  }
  std::set<int32_t> keep = added_versions_;
  keep.insert(m_.current_version_id);
  size_t to_keep = std::max(keep.size(), static_cast<size_t>(history));
  if (m_.versions.size() <= to_keep) return;
  std::vector<ViewVersion> sorted = m_.versions;
  std::sort(sorted.begin(), sorted.end(),
            [](const ViewVersion& a, const ViewVersion& b) { return a.version_id > b.version_id; });
  std::set<int32_t> retained = keep;
  for (const ViewVersion& v : sorted) {
    if (retained.size() >= to_keep) break;
    retained.insert(v.version_id);
  }
  std::vector<ViewVersion> kept;
  for (ViewVersion& v : m_.versions) {
    if (retained.count(v.version_id)) kept.push_back(std::move(v));
  }
  m_.versions = std::move(kept);
  std::vector<ViewLogEntry> log;
  for (const ViewLogEntry& e : m_.version_log) {
    if (retained.count(e.version_id)) {
      log.push_back(e);
    } else {
      log.clear();  // history before an expired version is no longer continuous
    }
  }
  m_.version_log = std::move(log);
}

Result<ViewMetadata> ViewBuilder::Build() {
  if (m_.CurrentVersion() == nullptr) {
    return Status::InvalidArgument("view has no current version");
  }
  if (m_.FindSchema(m_.CurrentVersion()->schema_id) == nullptr) {
    return Status::InvalidArgument("view's current version has no schema");
  }
  if (m_.location.empty()) return Status::InvalidArgument("view has no location");
  if (m_.view_uuid.empty()) return Status::InvalidArgument("view has no uuid");
  if (changed_) ExpireVersions();
  return m_;
}

}  // namespace cairn::engine
