#include "engine/table_requirement.h"

#include <map>

namespace cairn::engine {
namespace {

using Kind = TableRequirement::Kind;

struct KindInfo {
  Kind kind;
  const char* field;  // the expected-value field, if any
};

const std::map<std::string, KindInfo, std::less<>>& Types() {
  static const std::map<std::string, KindInfo, std::less<>> kTypes = {
      {"assert-create", {Kind::kAssertCreate, nullptr}},
      {"assert-table-uuid", {Kind::kAssertTableUuid, nullptr}},
      {"assert-ref-snapshot-id", {Kind::kAssertRefSnapshotId, nullptr}},
      {"assert-last-assigned-field-id",
       {Kind::kAssertLastAssignedFieldId, "last-assigned-field-id"}},
      {"assert-current-schema-id", {Kind::kAssertCurrentSchemaId, "current-schema-id"}},
      {"assert-last-assigned-partition-id",
       {Kind::kAssertLastAssignedPartitionId, "last-assigned-partition-id"}},
      {"assert-default-spec-id", {Kind::kAssertDefaultSpecId, "default-spec-id"}},
      {"assert-default-sort-order-id",
       {Kind::kAssertDefaultSortOrderId, "default-sort-order-id"}},
  };
  return kTypes;
}

Status Failed(const std::string& what) {
  return Status::CommitFailed("Requirement failed: " + what);
}

Status CheckId(const char* what, int64_t expected, int64_t actual) {
  if (expected == actual) return Status::OK();
  return Failed(std::string(what) + " changed: expected id " + std::to_string(expected) +
                " != " + std::to_string(actual));
}

Status CheckRef(const TableRequirement& r, const TableMetadata& base) {
  auto it = base.refs.find(r.text);
  if (it == base.refs.end()) {
    if (!r.number) return Status::OK();
    return Failed("branch or tag " + r.text + " is missing, expected " +
                  std::to_string(*r.number));
  }
  const char* kind = it->second.is_branch() ? "branch" : "tag";
  if (!r.number) return Failed(std::string(kind) + " " + r.text + " was created concurrently");
  if (*r.number != it->second.snapshot_id) {
    return Failed(std::string(kind) + " " + r.text + " has changed: expected id " +
                  std::to_string(*r.number) + " != " + std::to_string(it->second.snapshot_id));
  }
  return Status::OK();
}

}  // namespace

Result<TableRequirement> TableRequirement::FromJson(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("each requirement must be a JSON object");
  ASSIGN_OR_RETURN(std::string type, GetString(json, "type"));
  auto it = Types().find(type);
  if (it == Types().end()) {
    return Status::InvalidArgument("unknown table requirement type '" + type + "'");
  }
  TableRequirement r;
  r.kind = it->second.kind;
  Status st;
  if (r.kind == Kind::kAssertTableUuid) {
    auto uuid = GetString(json, "uuid");
    st = uuid.status();
    if (uuid.ok()) r.text = *uuid;
  } else if (r.kind == Kind::kAssertRefSnapshotId) {
    auto ref = GetString(json, "ref");
    auto id = GetOptInt64(json, "snapshot-id");
    st = !ref.ok() ? ref.status() : id.status();
    if (st.ok()) {
      r.text = *ref;
      r.number = *id;
    }
  } else if (it->second.field != nullptr) {
    auto id = GetInt64(json, it->second.field);
    st = id.status();
    if (id.ok()) r.number = *id;
  }
  RETURN_IF_ERROR(st.WithPrefix("invalid " + type + " requirement"));
  return r;
}

Status TableRequirement::Check(const TableMetadata* base) const {
  if (kind == Kind::kAssertCreate) {
    return base == nullptr ? Status::OK() : Failed("table already exists");
  }
  if (base == nullptr) return Failed("table does not exist");
  switch (kind) {
    case Kind::kAssertCreate:
      break;
    case Kind::kAssertTableUuid:
      if (text == base->table_uuid) return Status::OK();
      return Failed("UUID does not match: expected " + base->table_uuid + " != " + text);
    case Kind::kAssertRefSnapshotId:
      return CheckRef(*this, *base);
    case Kind::kAssertLastAssignedFieldId:
      return CheckId("last assigned field id", *number, base->last_column_id);
    case Kind::kAssertCurrentSchemaId:
      return CheckId("current schema", *number, base->current_schema_id);
    case Kind::kAssertLastAssignedPartitionId:
      return CheckId("last assigned partition id", *number, base->last_partition_id);
    case Kind::kAssertDefaultSpecId:
      return CheckId("default partition spec", *number, base->default_spec_id);
    case Kind::kAssertDefaultSortOrderId:
      return CheckId("default sort order", *number, base->default_sort_order_id);
  }
  return Status::OK();
}

Result<std::vector<TableRequirement>> ParseTableRequirements(const Json& array) {
  if (!array.is_array()) return Status::InvalidArgument("field 'requirements' must be an array");
  std::vector<TableRequirement> out;
  for (const Json& j : array) {
    ASSIGN_OR_RETURN(TableRequirement r, TableRequirement::FromJson(j));
    out.push_back(std::move(r));
  }
  return out;
}

bool HasAssertCreate(const std::vector<TableRequirement>& requirements) {
  for (const TableRequirement& r : requirements) {
    if (r.kind == TableRequirement::Kind::kAssertCreate) return true;
  }
  return false;
}

}  // namespace cairn::engine
