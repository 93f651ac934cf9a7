#include "engine/table_update.h"

#include <map>

namespace cairn::engine {
namespace {

using Kind = TableUpdate::Kind;

const std::map<std::string, Kind, std::less<>>& Actions() {
  static const std::map<std::string, Kind, std::less<>> kActions = {
      {"assign-uuid", Kind::kAssignUuid},
      {"upgrade-format-version", Kind::kUpgradeFormatVersion},
      {"add-schema", Kind::kAddSchema},
      {"set-current-schema", Kind::kSetCurrentSchema},
      {"remove-schemas", Kind::kRemoveSchemas},
      {"add-spec", Kind::kAddSpec},
      {"set-default-spec", Kind::kSetDefaultSpec},
      {"remove-partition-specs", Kind::kRemovePartitionSpecs},
      {"add-sort-order", Kind::kAddSortOrder},
      {"set-default-sort-order", Kind::kSetDefaultSortOrder},
      {"add-snapshot", Kind::kAddSnapshot},
      {"set-snapshot-ref", Kind::kSetSnapshotRef},
      {"remove-snapshots", Kind::kRemoveSnapshots},
      {"remove-snapshot-ref", Kind::kRemoveSnapshotRef},
      {"set-location", Kind::kSetLocation},
      {"set-properties", Kind::kSetProperties},
      {"remove-properties", Kind::kRemoveProperties},
      {"set-statistics", Kind::kSetStatistics},
      {"remove-statistics", Kind::kRemoveStatistics},
      {"set-partition-statistics", Kind::kSetPartitionStatistics},
      {"remove-partition-statistics", Kind::kRemovePartitionStatistics},
      {"add-encryption-key", Kind::kAddEncryptionKey},
      {"remove-encryption-key", Kind::kRemoveEncryptionKey},
  };
  return kActions;
}

Result<std::vector<int64_t>> GetIdList(const Json& json, const char* key) {
  ASSIGN_OR_RETURN(const Json* arr, GetArray(json, key));
  std::vector<int64_t> out;
  for (const Json& e : *arr) {
    ASSIGN_OR_RETURN(int64_t id, AsInt64(e, std::string("elements of '") + key + "'"));
    out.push_back(id);
  }
  return out;
}

Result<KeyedEntry> GetStatistics(const Json& json, const char* key) {
  ASSIGN_OR_RETURN(const Json* obj, GetObject(json, key));
  KeyedEntry e;
  ASSIGN_OR_RETURN(e.snapshot_id, GetInt64(*obj, "snapshot-id"));
  RETURN_IF_ERROR(GetString(*obj, "statistics-path").status());
  RETURN_IF_ERROR(GetInt64(*obj, "file-size-in-bytes").status());
  e.json = *obj;
  return e;
}

Status ParsePayload(const Json& json, TableUpdate* u) {
  switch (u->kind) {
    case Kind::kAssignUuid: {
      ASSIGN_OR_RETURN(u->text, GetString(json, "uuid"));
      return Status::OK();
    }
    case Kind::kUpgradeFormatVersion: {
      ASSIGN_OR_RETURN(u->number, GetInt32(json, "format-version"));
      return Status::OK();
    }
    case Kind::kAddSchema: {
      ASSIGN_OR_RETURN(const Json* schema, GetObject(json, "schema"));
      ASSIGN_OR_RETURN(u->schema, Schema::FromJson(*schema));
      ASSIGN_OR_RETURN(u->last_column_id, GetOptInt32(json, "last-column-id"));
      return Status::OK();
    }
    case Kind::kSetCurrentSchema: {
      ASSIGN_OR_RETURN(u->number, GetInt32(json, "schema-id"));
      return Status::OK();
    }
    case Kind::kRemoveSchemas: {
      ASSIGN_OR_RETURN(u->ids, GetIdList(json, "schema-ids"));
      return Status::OK();
    }
    case Kind::kAddSpec: {
      ASSIGN_OR_RETURN(const Json* spec, GetObject(json, "spec"));
      ASSIGN_OR_RETURN(u->spec, PartitionSpec::FromJson(*spec, -1));
      return Status::OK();
    }
    case Kind::kSetDefaultSpec: {
      ASSIGN_OR_RETURN(u->number, GetInt32(json, "spec-id"));
      return Status::OK();
    }
    case Kind::kRemovePartitionSpecs: {
      ASSIGN_OR_RETURN(u->ids, GetIdList(json, "spec-ids"));
      return Status::OK();
    }
    case Kind::kAddSortOrder: {
      ASSIGN_OR_RETURN(const Json* order, GetObject(json, "sort-order"));
      ASSIGN_OR_RETURN(u->sort_order, SortOrder::FromJson(*order));
      return Status::OK();
    }
    case Kind::kSetDefaultSortOrder: {
      ASSIGN_OR_RETURN(u->number, GetInt32(json, "sort-order-id"));
      return Status::OK();
    }
    case Kind::kAddSnapshot: {
      ASSIGN_OR_RETURN(const Json* snap, GetObject(json, "snapshot"));
      ASSIGN_OR_RETURN(u->snapshot, Snapshot::FromJson(*snap, 1));
      return Status::OK();
    }
    case Kind::kSetSnapshotRef: {
      ASSIGN_OR_RETURN(u->text, GetString(json, "ref-name"));
      ASSIGN_OR_RETURN(u->ref, SnapshotRef::FromJson(json));
      return Status::OK();
    }
    case Kind::kRemoveSnapshots: {
      ASSIGN_OR_RETURN(u->ids, GetIdList(json, "snapshot-ids"));
      return Status::OK();
    }
    case Kind::kRemoveSnapshotRef: {
      ASSIGN_OR_RETURN(u->text, GetString(json, "ref-name"));
      return Status::OK();
    }
    case Kind::kSetLocation: {
      ASSIGN_OR_RETURN(u->text, GetString(json, "location"));
      if (u->text.empty()) return Status::InvalidArgument("location must not be empty");
      return Status::OK();
    }
    case Kind::kSetProperties: {
      ASSIGN_OR_RETURN(const Json* updates, GetField(json, "updates"));
      ASSIGN_OR_RETURN(u->updates, AsStringMap(*updates, "field 'updates'"));
      return Status::OK();
    }
    case Kind::kRemoveProperties: {
      ASSIGN_OR_RETURN(u->removals, GetStringList(json, "removals"));
      return Status::OK();
    }
    case Kind::kSetStatistics: {
      ASSIGN_OR_RETURN(u->entry, GetStatistics(json, "statistics"));
      return Status::OK();
    }
    case Kind::kSetPartitionStatistics: {
      ASSIGN_OR_RETURN(u->entry, GetStatistics(json, "partition-statistics"));
      return Status::OK();
    }
    case Kind::kRemoveStatistics:
    case Kind::kRemovePartitionStatistics: {
      ASSIGN_OR_RETURN(u->number, GetInt64(json, "snapshot-id"));
      return Status::OK();
    }
    case Kind::kAddEncryptionKey: {
      ASSIGN_OR_RETURN(const Json* key, GetObject(json, "encryption-key"));
      KeyedEntry e;
      ASSIGN_OR_RETURN(e.key_id, GetString(*key, "key-id"));
      RETURN_IF_ERROR(GetString(*key, "encrypted-key-metadata").status());
      e.json = *key;
      u->entry = std::move(e);
      return Status::OK();
    }
    case Kind::kRemoveEncryptionKey: {
      ASSIGN_OR_RETURN(u->text, GetString(json, "key-id"));
      return Status::OK();
    }
  }
  return Status::Internal("unhandled update kind");
}

}  // namespace

Result<TableUpdate> TableUpdate::FromJson(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("each update must be a JSON object");
  ASSIGN_OR_RETURN(std::string action, GetString(json, "action"));
  auto it = Actions().find(action);
  if (it == Actions().end()) {
    return Status::InvalidArgument("unknown table update action '" + action + "'");
  }
  TableUpdate u;
  u.kind = it->second;
  u.action = action;
  RETURN_IF_ERROR(ParsePayload(json, &u).WithPrefix("invalid " + action + " update"));
  return u;
}

Result<std::vector<TableUpdate>> ParseTableUpdates(const Json& array) {
  if (!array.is_array()) return Status::InvalidArgument("field 'updates' must be an array");
  std::vector<TableUpdate> out;
  out.reserve(array.size());
  for (const Json& j : array) {
    ASSIGN_OR_RETURN(TableUpdate u, TableUpdate::FromJson(j));
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace cairn::engine
