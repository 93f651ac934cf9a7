#include "engine/table_metadata.h"

#include <algorithm>
#include <set>

namespace cairn::engine {
namespace {

std::string Str(int64_t n) { return std::to_string(n); }

Result<std::vector<KeyedEntry>> ParseStatistics(const Json& json, const char* key) {
  std::vector<KeyedEntry> out;
  const Json* arr = FindField(json, key);
  if (arr == nullptr) return out;
  if (!arr->is_array()) return Status::InvalidArgument(std::string(key) + " must be an array");
  for (const Json& e : *arr) {
    KeyedEntry k;
    ASSIGN_OR_RETURN(k.snapshot_id, GetInt64(e, "snapshot-id"));
    ASSIGN_OR_RETURN(std::string path, GetString(e, "statistics-path"));
    RETURN_IF_ERROR(GetInt64(e, "file-size-in-bytes").status());
    k.json = e;
    out.push_back(std::move(k));
  }
  return out;
}

Result<std::vector<KeyedEntry>> ParseEncryptionKeys(const Json& json) {
  std::vector<KeyedEntry> out;
  const Json* arr = FindField(json, "encryption-keys");
  if (arr == nullptr) return out;
  if (!arr->is_array()) return Status::InvalidArgument("encryption-keys must be an array");
  for (const Json& e : *arr) {
    KeyedEntry k;
    ASSIGN_OR_RETURN(k.key_id, GetString(e, "key-id"));
    RETURN_IF_ERROR(GetString(e, "encrypted-key-metadata").status());
    k.json = e;
    out.push_back(std::move(k));
  }
  return out;
}

Status ParseSchemas(const Json& json, TableMetadata* m) {
  if (const Json* arr = FindField(json, "schemas")) {
    if (!arr->is_array()) return Status::InvalidArgument("schemas must be an array");
    for (const Json& s : *arr) {
      ASSIGN_OR_RETURN(Schema schema, Schema::FromJson(s));
      m->schemas.push_back(std::move(schema));
    }
    ASSIGN_OR_RETURN(std::optional<int32_t> current, GetOptInt32(json, "current-schema-id"));
    if (!current) return Status::InvalidArgument("missing required field 'current-schema-id'");
    m->current_schema_id = *current;
  } else if (m->format_version == 1) {
    ASSIGN_OR_RETURN(const Json* legacy, GetObject(json, "schema"));
    ASSIGN_OR_RETURN(Schema schema, Schema::FromJson(*legacy));
    m->current_schema_id = schema.schema_id;
    m->schemas.push_back(std::move(schema));
  } else {
    return Status::InvalidArgument("missing required field 'schemas'");
  }
  if (m->CurrentSchema() == nullptr) {
    return Status::InvalidArgument("current-schema-id " + Str(m->current_schema_id) +
                                   " is not among the schemas");
  }
  return Status::OK();
}

Status ParseSpecs(const Json& json, TableMetadata* m) {
  if (const Json* arr = FindField(json, "partition-specs")) {
    if (!arr->is_array()) return Status::InvalidArgument("partition-specs must be an array");
    for (const Json& s : *arr) {
      ASSIGN_OR_RETURN(PartitionSpec spec, PartitionSpec::FromJson(s));
      m->specs.push_back(std::move(spec));
    }
    ASSIGN_OR_RETURN(std::optional<int32_t> def, GetOptInt32(json, "default-spec-id"));
    if (!def) return Status::InvalidArgument("missing required field 'default-spec-id'");
    m->default_spec_id = *def;
  } else if (m->format_version == 1) {
    ASSIGN_OR_RETURN(const Json* legacy, GetArray(json, "partition-spec"));
    PartitionSpec spec;
    ASSIGN_OR_RETURN(spec.fields, PartitionSpec::FieldsFromJson(*legacy));
    int32_t next = PartitionSpec::kFirstFieldId;
    for (PartitionField& f : spec.fields) {
      if (!f.field_id) f.field_id = next;
      next = *f.field_id + 1;
    }
    m->specs.push_back(std::move(spec));
  } else {
    return Status::InvalidArgument("missing required field 'partition-specs'");
  }
  if (m->FindSpec(m->default_spec_id) == nullptr) {
    return Status::InvalidArgument("default-spec-id " + Str(m->default_spec_id) +
                                   " is not among the partition specs");
  }
  ASSIGN_OR_RETURN(std::optional<int32_t> last, GetOptInt32(json, "last-partition-id"));
  if (!last && m->format_version >= 2) {
    return Status::InvalidArgument("missing required field 'last-partition-id'");
  }
  int32_t highest = PartitionSpec::kFirstFieldId - 1;
  for (const PartitionSpec& s : m->specs) highest = std::max(highest, s.LastAssignedFieldId());
  m->last_partition_id = last.value_or(highest);
  return Status::OK();
}

Status ParseSortOrders(const Json& json, TableMetadata* m) {
  if (const Json* arr = FindField(json, "sort-orders")) {
    if (!arr->is_array()) return Status::InvalidArgument("sort-orders must be an array");
    for (const Json& s : *arr) {
      ASSIGN_OR_RETURN(SortOrder order, SortOrder::FromJson(s));
      m->sort_orders.push_back(std::move(order));
    }
    ASSIGN_OR_RETURN(std::optional<int32_t> def, GetOptInt32(json, "default-sort-order-id"));
    if (!def) return Status::InvalidArgument("missing required field 'default-sort-order-id'");
    m->default_sort_order_id = *def;
  } else if (m->format_version == 1) {
    m->sort_orders.push_back(SortOrder{});
  } else {
    return Status::InvalidArgument("missing required field 'sort-orders'");
  }
  if (m->FindSortOrder(m->default_sort_order_id) == nullptr) {
    return Status::InvalidArgument("default-sort-order-id " + Str(m->default_sort_order_id) +
                                   " is not among the sort orders");
  }
  return Status::OK();
}

Status ParseSnapshots(const Json& json, TableMetadata* m) {
  if (const Json* arr = FindField(json, "snapshots")) {
    if (!arr->is_array()) return Status::InvalidArgument("snapshots must be an array");
    m->snapshots.reserve(arr->size());
    for (const Json& s : *arr) {
      ASSIGN_OR_RETURN(Snapshot snap, Snapshot::FromJson(s, m->format_version));
      m->snapshots.push_back(Freeze(std::move(snap)));
    }
  }
  ASSIGN_OR_RETURN(std::optional<int64_t> current, GetOptInt64(json, "current-snapshot-id"));
  if (current && *current != TableMetadata::kNoSnapshot) {
    if (m->FindSnapshot(*current) == nullptr) {
      return Status::InvalidArgument("current-snapshot-id " + Str(*current) +
                                     " is not among the snapshots");
    }
    m->current_snapshot_id = current;
  }
  if (const Json* refs = FindField(json, "refs")) {
    if (!refs->is_object()) return Status::InvalidArgument("refs must be an object");
    for (auto it = refs->begin(); it != refs->end(); ++it) {
      ASSIGN_OR_RETURN(SnapshotRef ref, SnapshotRef::FromJson(*it));
      if (m->FindSnapshot(ref.snapshot_id) == nullptr) {
        return Status::InvalidArgument("ref '" + it.key() + "' points to unknown snapshot " +
                                       Str(ref.snapshot_id));
      }
      m->refs.emplace(it.key(), std::move(ref));
    }
  }
  if (m->current_snapshot_id && m->refs.count("main") == 0) {
    m->refs.emplace("main", SnapshotRef{*m->current_snapshot_id, "branch", {}, {}, {}});
  }
  auto main = m->refs.find("main");
  std::optional<int64_t> main_id;
  if (main != m->refs.end()) main_id = main->second.snapshot_id;
  if (main_id != m->current_snapshot_id) {
    return Status::InvalidArgument("ref 'main' (" + (main_id ? Str(*main_id) : "absent") +
                                   ") disagrees with current-snapshot-id (" +
                                   (m->current_snapshot_id ? Str(*m->current_snapshot_id) : "-1") +
                                   ")");
  }
  return Status::OK();
}

Status ParseLogs(const Json& json, TableMetadata* m) {
  if (const Json* arr = FindField(json, "snapshot-log")) {
    if (!arr->is_array()) return Status::InvalidArgument("snapshot-log must be an array");
    for (const Json& e : *arr) {
      SnapshotLogEntry entry;
      ASSIGN_OR_RETURN(entry.timestamp_ms, GetInt64(e, "timestamp-ms"));
      ASSIGN_OR_RETURN(entry.snapshot_id, GetInt64(e, "snapshot-id"));
      m->snapshot_log.push_back(entry);
    }
  }
  if (const Json* arr = FindField(json, "metadata-log")) {
    if (!arr->is_array()) return Status::InvalidArgument("metadata-log must be an array");
    for (const Json& e : *arr) {
      MetadataLogEntry entry;
      ASSIGN_OR_RETURN(entry.timestamp_ms, GetInt64(e, "timestamp-ms"));
      ASSIGN_OR_RETURN(entry.metadata_file, GetString(e, "metadata-file"));
      m->metadata_log.push_back(std::move(entry));
    }
  }
  return Status::OK();
}

Json EntriesToJson(const std::vector<KeyedEntry>& entries) {
  Json arr = Json::array();
  for (const KeyedEntry& e : entries) arr.push_back(e.json);
  return arr;
}

Json BaseToJson(const TableMetadata& m) {
  Json j;
  j["format-version"] = m.format_version;
  j["table-uuid"] = m.table_uuid;
  j["location"] = m.location;
  if (m.format_version >= 2) j["last-sequence-number"] = m.last_sequence_number;
  j["last-updated-ms"] = m.last_updated_ms;
  j["last-column-id"] = m.last_column_id;
  Json schemas = Json::array();
  for (const Schema& s : m.schemas) schemas.push_back(s.ToJson());
  j["schemas"] = std::move(schemas);
  j["current-schema-id"] = m.current_schema_id;
  Json specs = Json::array();
  for (const PartitionSpec& s : m.specs) specs.push_back(s.ToJson());
  j["partition-specs"] = std::move(specs);
  j["default-spec-id"] = m.default_spec_id;
  j["last-partition-id"] = m.last_partition_id;
  Json orders = Json::array();
  for (const SortOrder& o : m.sort_orders) orders.push_back(o.ToJson());
  j["sort-orders"] = std::move(orders);
  j["default-sort-order-id"] = m.default_sort_order_id;
  if (m.format_version == 1) {
    j["schema"] = m.CurrentSchema()->ToJson();
    j["partition-spec"] = m.FindSpec(m.default_spec_id)->FieldsToJson();
  }
  j["properties"] = m.properties;
  j["current-snapshot-id"] = m.current_snapshot_id.value_or(TableMetadata::kNoSnapshot);
  Json refs = Json::object();
  for (const auto& [name, ref] : m.refs) refs[name] = ref.ToJson();
  j["refs"] = std::move(refs);
  j["statistics"] = EntriesToJson(m.statistics);
  j["partition-statistics"] = EntriesToJson(m.partition_statistics);
  if (m.format_version >= 3) j["next-row-id"] = m.next_row_id.value_or(0);
  if (!m.encryption_keys.empty()) j["encryption-keys"] = EntriesToJson(m.encryption_keys);
  return j;
}

}  // namespace

const Schema* TableMetadata::FindSchema(int32_t id) const {
  for (const Schema& s : schemas) {
    if (s.schema_id == id) return &s;
  }
  return nullptr;
}

const PartitionSpec* TableMetadata::FindSpec(int32_t id) const {
  for (const PartitionSpec& s : specs) {
    if (s.spec_id == id) return &s;
  }
  return nullptr;
}

const SortOrder* TableMetadata::FindSortOrder(int32_t id) const {
  for (const SortOrder& o : sort_orders) {
    if (o.order_id == id) return &o;
  }
  return nullptr;
}

const Snapshot* TableMetadata::FindSnapshot(int64_t id) const {
  // Newest snapshots are looked up most often: search from the back.
  for (auto it = snapshots.rbegin(); it != snapshots.rend(); ++it) {
    if ((*it)->snapshot_id == id) return it->get();
  }
  return nullptr;
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  return current_snapshot_id ? FindSnapshot(*current_snapshot_id) : nullptr;
}

Result<TableMetadata> TableMetadata::FromJson(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("table metadata must be a JSON object");
  TableMetadata m;
  ASSIGN_OR_RETURN(m.format_version, GetInt32(json, "format-version"));
  if (m.format_version < kMinFormatVersion || m.format_version > kMaxFormatVersion) {
    return Status::InvalidArgument("unsupported format-version " + Str(m.format_version) +
                                   " (supported: 1 to 3)");
  }
  ASSIGN_OR_RETURN(std::optional<std::string> uuid, GetOptString(json, "table-uuid"));
  if (!uuid && m.format_version >= 2) {
    return Status::InvalidArgument("missing required field 'table-uuid'");
  }
  m.table_uuid = uuid.value_or("");
  ASSIGN_OR_RETURN(m.location, GetString(json, "location"));
  ASSIGN_OR_RETURN(std::optional<int64_t> seq, GetOptInt64(json, "last-sequence-number"));
  if (!seq && m.format_version >= 2) {
    return Status::InvalidArgument("missing required field 'last-sequence-number'");
  }
  m.last_sequence_number = seq.value_or(0);
  ASSIGN_OR_RETURN(m.last_updated_ms, GetInt64(json, "last-updated-ms"));
  ASSIGN_OR_RETURN(m.last_column_id, GetInt32(json, "last-column-id"));
  RETURN_IF_ERROR(ParseSchemas(json, &m));
  RETURN_IF_ERROR(ParseSpecs(json, &m));
  RETURN_IF_ERROR(ParseSortOrders(json, &m));
  ASSIGN_OR_RETURN(m.properties, GetOptStringMap(json, "properties"));
  RETURN_IF_ERROR(ParseSnapshots(json, &m));
  RETURN_IF_ERROR(ParseLogs(json, &m));
  ASSIGN_OR_RETURN(m.statistics, ParseStatistics(json, "statistics"));
  ASSIGN_OR_RETURN(m.partition_statistics, ParseStatistics(json, "partition-statistics"));
  ASSIGN_OR_RETURN(m.next_row_id, GetOptInt64(json, "next-row-id"));
  if (m.format_version >= 3 && !m.next_row_id) m.next_row_id = 0;
  ASSIGN_OR_RETURN(m.encryption_keys, ParseEncryptionKeys(json));
  return m;
}

Result<TableMetadata> TableMetadata::FromJsonText(std::string_view text) {
  ASSIGN_OR_RETURN(Json json, ParseJson(text));
  return FromJson(json);
}

Json TableMetadata::ToJson() const {
  Json j = BaseToJson(*this);
  Json slog = Json::array();
  for (const SnapshotLogEntry& e : snapshot_log) {
    slog.push_back({{"timestamp-ms", e.timestamp_ms}, {"snapshot-id", e.snapshot_id}});
  }
  j["snapshot-log"] = std::move(slog);
  Json mlog = Json::array();
  for (const MetadataLogEntry& e : metadata_log) {
    mlog.push_back({{"timestamp-ms", e.timestamp_ms}, {"metadata-file", e.metadata_file}});
  }
  j["metadata-log"] = std::move(mlog);
  Json snaps = Json::array();
  for (const auto& s : snapshots) snaps.push_back(s->ToJson(format_version));
  j["snapshots"] = std::move(snaps);
  return j;
}

namespace {

// The two logs, written straight into `out`: they grow with the table's history, and a
// tree of one small object per entry would cost more than the rest of the document.
void AppendLogs(const TableMetadata& m, std::string* out) {
  *out += ",\"snapshot-log\":[";
  for (size_t i = 0; i < m.snapshot_log.size(); ++i) {
    const SnapshotLogEntry& e = m.snapshot_log[i];
    if (i > 0) *out += ',';
    *out += "{\"snapshot-id\":";
    AppendJsonInt(e.snapshot_id, out);
    *out += ",\"timestamp-ms\":";
    AppendJsonInt(e.timestamp_ms, out);
    *out += '}';
  }
  *out += "],\"metadata-log\":[";
  for (size_t i = 0; i < m.metadata_log.size(); ++i) {
    const MetadataLogEntry& e = m.metadata_log[i];
    if (i > 0) *out += ',';
    *out += "{\"metadata-file\":";
    AppendJsonString(e.metadata_file, out);
    *out += ",\"timestamp-ms\":";
    AppendJsonInt(e.timestamp_ms, out);
    *out += '}';
  }
  *out += ']';
}

// The whole document as text, with the snapshots `keep` selects: the small fields through a
// JSON tree, the logs written directly, each snapshot's cached text (see Freeze) copied.
template <typename Keep>
std::string DocumentText(const TableMetadata& m, Keep keep) {
  std::string out = BaseToJson(m).dump();
  out.pop_back();  // the closing brace: the logs and "snapshots" follow
  // Upper bounds: an entry of either log is at most 70 bytes besides its file name.
  size_t bytes = out.size() + 64 + m.snapshot_log.size() * 72;
  for (const MetadataLogEntry& e : m.metadata_log) bytes += e.metadata_file.size() + 72;
  for (const auto& s : m.snapshots) bytes += s->json.size() + 1;
  out.reserve(bytes);
  AppendLogs(m, &out);
  out += ",\"snapshots\":[";
  bool first = true;
  for (const auto& s : m.snapshots) {
    if (!keep(*s)) continue;
    if (!first) out += ',';
    first = false;
    // v1 documents spell snapshots differently (no zero sequence numbers).
    if (m.format_version >= 2 && !s->json.empty()) {
      out += s->json;
    } else {
      out += s->ToJson(m.format_version).dump();
    }
  }
  out += "]}";
  return out;
}

}  // namespace

std::string TableMetadata::ToJsonText() const {
  return DocumentText(*this, [](const Snapshot&) { return true; });
}

std::string TableMetadata::ToJsonRefsOnlyText() const {
  std::set<int64_t> referenced;
  for (const auto& [name, ref] : refs) referenced.insert(ref.snapshot_id);
  return DocumentText(*this, [&](const Snapshot& s) {
    return referenced.count(s.snapshot_id) > 0;
  });
}

}  // namespace cairn::engine
