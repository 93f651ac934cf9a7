#include "engine/snapshot.h"

namespace cairn::engine {

Result<Snapshot> Snapshot::FromJson(const Json& json, int format_version) {
  if (!json.is_object()) return Status::InvalidArgument("snapshot must be an object");
  Snapshot s;
  ASSIGN_OR_RETURN(s.snapshot_id, GetInt64(json, "snapshot-id"));
  ASSIGN_OR_RETURN(s.parent_snapshot_id, GetOptInt64(json, "parent-snapshot-id"));
  ASSIGN_OR_RETURN(std::optional<int64_t> seq, GetOptInt64(json, "sequence-number"));
  if (!seq && format_version >= 2) {
    return Status::InvalidArgument("snapshot " + std::to_string(s.snapshot_id) +
                                   ": missing required field 'sequence-number'");
  }
  s.sequence_number = seq.value_or(0);
  ASSIGN_OR_RETURN(s.timestamp_ms, GetInt64(json, "timestamp-ms"));
  // A table upgraded from v1 keeps its v1 snapshots (manifests, no summary): read them as
  // they are; MetadataBuilder holds new snapshots to the rules of the table's version.
  ASSIGN_OR_RETURN(std::optional<std::string> list, GetOptString(json, "manifest-list"));
  if (list) {
    s.manifest_list = *list;
  } else if (FindField(json, "manifests") != nullptr) {
    ASSIGN_OR_RETURN(s.manifests, GetStringList(json, "manifests"));
  } else if (format_version >= 2) {
    return Status::InvalidArgument("snapshot " + std::to_string(s.snapshot_id) +
                                   ": missing required field 'manifest-list'");
  }
  ASSIGN_OR_RETURN(s.summary, GetOptStringMap(json, "summary"));
  ASSIGN_OR_RETURN(s.schema_id, GetOptInt32(json, "schema-id"));
  ASSIGN_OR_RETURN(s.first_row_id, GetOptInt64(json, "first-row-id"));
  ASSIGN_OR_RETURN(s.added_rows, GetOptInt64(json, "added-rows"));
  ASSIGN_OR_RETURN(s.key_id, GetOptString(json, "key-id"));
  return s;
}

Json Snapshot::ToJson(int format_version) const {
  Json j = {{"snapshot-id", snapshot_id}, {"timestamp-ms", timestamp_ms}};
  if (parent_snapshot_id) j["parent-snapshot-id"] = *parent_snapshot_id;
  if (format_version >= 2 || sequence_number > 0) j["sequence-number"] = sequence_number;
  if (!manifest_list.empty()) {
    j["manifest-list"] = manifest_list;
  } else if (!manifests.empty()) {
    j["manifests"] = manifests;
  }
  if (!summary.empty()) j["summary"] = summary;
  if (schema_id) j["schema-id"] = *schema_id;
  if (first_row_id) j["first-row-id"] = *first_row_id;
  if (added_rows) j["added-rows"] = *added_rows;
  if (key_id) j["key-id"] = *key_id;
  return j;
}

std::shared_ptr<const Snapshot> Freeze(Snapshot snapshot) {
  snapshot.json = snapshot.ToJson(2).dump();
  return std::make_shared<const Snapshot>(std::move(snapshot));
}

const std::string& Snapshot::operation() const {
  static const std::string kNone;
  auto it = summary.find("operation");
  return it == summary.end() ? kNone : it->second;
}

Result<SnapshotRef> SnapshotRef::FromJson(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("snapshot ref must be an object");
  SnapshotRef r;
  ASSIGN_OR_RETURN(r.snapshot_id, GetInt64(json, "snapshot-id"));
  ASSIGN_OR_RETURN(r.type, GetString(json, "type"));
  if (r.type != "branch" && r.type != "tag") {
    return Status::InvalidArgument("snapshot ref type must be 'branch' or 'tag', got '" + r.type +
                                   "'");
  }
  ASSIGN_OR_RETURN(r.min_snapshots_to_keep, GetOptInt32(json, "min-snapshots-to-keep"));
  ASSIGN_OR_RETURN(r.max_snapshot_age_ms, GetOptInt64(json, "max-snapshot-age-ms"));
  ASSIGN_OR_RETURN(r.max_ref_age_ms, GetOptInt64(json, "max-ref-age-ms"));
  if (r.type == "tag" && (r.min_snapshots_to_keep || r.max_snapshot_age_ms)) {
    return Status::InvalidArgument("tags do not support snapshot retention settings");
  }
  return r;
}

Json SnapshotRef::ToJson() const {
  Json j = {{"snapshot-id", snapshot_id}, {"type", type}};
  if (min_snapshots_to_keep) j["min-snapshots-to-keep"] = *min_snapshots_to_keep;
  if (max_snapshot_age_ms) j["max-snapshot-age-ms"] = *max_snapshot_age_ms;
  if (max_ref_age_ms) j["max-ref-age-ms"] = *max_ref_age_ms;
  return j;
}

}  // namespace cairn::engine
