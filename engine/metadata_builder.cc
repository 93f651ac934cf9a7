#include "engine/metadata_builder.h"

#include <algorithm>
#include <set>

namespace cairn::engine {
namespace {

using Kind = TableUpdate::Kind;

std::string Str(int64_t n) { return std::to_string(n); }

template <typename T, typename Pred>
bool EraseIf(std::vector<T>* v, Pred pred) {
  auto it = std::remove_if(v->begin(), v->end(), pred);
  bool any = it != v->end();
  v->erase(it, v->end());
  return any;
}

void Upsert(std::vector<KeyedEntry>* entries, const KeyedEntry& e, bool by_key_id) {
  for (KeyedEntry& existing : *entries) {
    if (by_key_id ? existing.key_id == e.key_id : existing.snapshot_id == e.snapshot_id) {
      existing = e;
      return;
    }
  }
  entries->push_back(e);
}

}  // namespace

MetadataBuilder::MetadataBuilder(const TableMetadata& base, std::string base_location,
                                 int64_t now_ms)
    : m_(base),
      base_location_(std::move(base_location)),
      base_last_updated_ms_(base.last_updated_ms),
      now_ms_(now_ms) {}

TableMetadata MetadataBuilder::Empty(int format_version) {
  TableMetadata m;
  m.format_version = format_version;
  m.current_schema_id = -1;
  m.default_spec_id = -1;
  m.default_sort_order_id = -1;
  if (format_version >= 3) m.next_row_id = 0;
  return m;
}

Status MetadataBuilder::ApplyAll(const std::vector<TableUpdate>& updates) {
  for (const TableUpdate& u : updates) RETURN_IF_ERROR(Apply(u));
  return Status::OK();
}

Status MetadataBuilder::Apply(const TableUpdate& u) {
  switch (u.kind) {
    case Kind::kAssignUuid:
      if (u.text != m_.table_uuid) {
        m_.table_uuid = u.text;
        changed_ = true;
      }
      return Status::OK();
    case Kind::kUpgradeFormatVersion:
      return UpgradeFormatVersion(static_cast<int>(u.number));
    case Kind::kAddSchema:
      return AddSchema(u);
    case Kind::kSetCurrentSchema:
      return SetCurrentSchema(static_cast<int32_t>(u.number));
    case Kind::kRemoveSchemas:
      return RemoveSchemas(u.ids);
    case Kind::kAddSpec:
      return AddSpec(*u.spec);
    case Kind::kSetDefaultSpec:
      return SetDefaultSpec(static_cast<int32_t>(u.number));
    case Kind::kRemovePartitionSpecs:
      return RemoveSpecs(u.ids);
    case Kind::kAddSortOrder:
      return AddSortOrder(*u.sort_order);
    case Kind::kSetDefaultSortOrder:
      return SetDefaultSortOrder(static_cast<int32_t>(u.number));
    case Kind::kAddSnapshot:
      return AddSnapshot(*u.snapshot);
    case Kind::kSetSnapshotRef:
      return SetRef(u.text, *u.ref);
    case Kind::kRemoveSnapshots:
      return RemoveSnapshots(u.ids);
    case Kind::kRemoveSnapshotRef:
      RemoveRef(u.text);
      return Status::OK();
    case Kind::kSetLocation:
      if (u.text != m_.location) {
        m_.location = u.text;
        changed_ = true;
      }
      return Status::OK();
    case Kind::kSetProperties:
      for (const auto& [k, v] : u.updates) {
        auto [it, inserted] = m_.properties.try_emplace(k, v);
        if (!inserted && it->second == v) continue;
        it->second = v;
        changed_ = true;
      }
      return Status::OK();
    case Kind::kRemoveProperties:
      for (const std::string& k : u.removals) changed_ |= m_.properties.erase(k) > 0;
      return Status::OK();
    case Kind::kSetStatistics:
      Upsert(&m_.statistics, *u.entry, false);
      changed_ = true;
      return Status::OK();
    case Kind::kSetPartitionStatistics:
      Upsert(&m_.partition_statistics, *u.entry, false);
      changed_ = true;
      return Status::OK();
    case Kind::kRemoveStatistics:
      changed_ |= EraseIf(&m_.statistics, [&](const KeyedEntry& e) {
        return e.snapshot_id == u.number;
      });
      return Status::OK();
    case Kind::kRemovePartitionStatistics:
      changed_ |= EraseIf(&m_.partition_statistics, [&](const KeyedEntry& e) {
        return e.snapshot_id == u.number;
      });
      return Status::OK();
    case Kind::kAddEncryptionKey:
      Upsert(&m_.encryption_keys, *u.entry, true);
      changed_ = true;
      return Status::OK();
    case Kind::kRemoveEncryptionKey:
      changed_ |= EraseIf(&m_.encryption_keys,
                          [&](const KeyedEntry& e) { return e.key_id == u.text; });
      return Status::OK();
  }
  return Status::Internal("unhandled update " + u.action);
}

Status MetadataBuilder::UpgradeFormatVersion(int version) {
  if (version > TableMetadata::kMaxFormatVersion) {
    return Status::InvalidArgument("Cannot upgrade table to unsupported format version: v" +
                                   Str(version) + " (supported: v" +
                                   Str(TableMetadata::kMaxFormatVersion) + ")");
  }
  if (version < m_.format_version) {
    return Status::InvalidArgument("Cannot downgrade v" + Str(m_.format_version) +
                                   " table to v" + Str(version));
  }
  if (version == m_.format_version) return Status::OK();
  m_.format_version = version;
  if (version >= 3 && !m_.next_row_id) m_.next_row_id = 0;
  changed_ = true;
  return Status::OK();
}

Status MetadataBuilder::AddSchema(const TableUpdate& u) {
  Schema schema = *u.schema;
  int32_t new_id = 0;
  for (const Schema& s : m_.schemas) {
    if (s.SameStructure(schema)) {
      last_added_schema_ = s.schema_id;
      return Status::OK();
    }
    new_id = std::max(new_id, s.schema_id + 1);
  }
  schema.schema_id = new_id;
  m_.last_column_id = std::max({m_.last_column_id, schema.highest_field_id,
                                u.last_column_id.value_or(0)});
  m_.schemas.push_back(std::move(schema));
  last_added_schema_ = new_id;
  changed_ = true;
  return Status::OK();
}

Status MetadataBuilder::SetCurrentSchema(int32_t id) {
  if (id == -1) {
    if (!last_added_schema_) {
      return Status::InvalidArgument("Cannot set last added schema: no schema has been added");
    }
    id = *last_added_schema_;
  }
  if (m_.FindSchema(id) == nullptr) {
    return Status::InvalidArgument("Cannot set current schema to unknown schema: " + Str(id));
  }
  if (id != m_.current_schema_id) {
    m_.current_schema_id = id;
    changed_ = true;
  }
  return Status::OK();
}

Status MetadataBuilder::CheckSourceIds(const std::vector<int32_t>& ids, const char* what) const {
  const Schema* schema = m_.CurrentSchema();
  if (schema == nullptr) return Status::OK();
  for (int32_t id : ids) {
    if (schema->FindField(id) == nullptr) {
      return Status::InvalidArgument(std::string("Cannot find source column for ") + what +
                                     ": " + Str(id));
    }
  }
  return Status::OK();
}

Status MetadataBuilder::AddSpec(const PartitionSpec& requested) {
  PartitionSpec spec = requested;
  std::vector<int32_t> sources;
  int32_t last = m_.last_partition_id;
  for (PartitionField& f : spec.fields) {
    if (!f.field_id) f.field_id = ++last;
    last = std::max(last, *f.field_id);
    sources.push_back(f.source_id);
  }
  RETURN_IF_ERROR(CheckSourceIds(sources, "partition field"));
  int32_t new_id = 0;
  for (const PartitionSpec& s : m_.specs) {
    if (s.CompatibleWith(requested)) {
      last_added_spec_ = s.spec_id;
      return Status::OK();
    }
    new_id = std::max(new_id, s.spec_id + 1);
  }
  spec.spec_id = new_id;
  m_.last_partition_id = std::max(m_.last_partition_id, spec.LastAssignedFieldId());
  m_.specs.push_back(std::move(spec));
  last_added_spec_ = new_id;
  changed_ = true;
  return Status::OK();
}

Status MetadataBuilder::SetDefaultSpec(int32_t id) {
  if (id == -1) {
    if (!last_added_spec_) {
      return Status::InvalidArgument("Cannot set last added spec: no spec has been added");
    }
    id = *last_added_spec_;
  }
  if (m_.FindSpec(id) == nullptr) {
    return Status::InvalidArgument("Cannot set default partition spec to unknown spec: " +
                                   Str(id));
  }
  if (id != m_.default_spec_id) {
    m_.default_spec_id = id;
    changed_ = true;
  }
  return Status::OK();
}

Status MetadataBuilder::AddSortOrder(const SortOrder& requested) {
  SortOrder order = requested;
  std::vector<int32_t> sources;
  for (const SortField& f : order.fields) sources.push_back(f.source_id);
  RETURN_IF_ERROR(CheckSourceIds(sources, "sort field"));
  int32_t new_id = 1;
  for (const SortOrder& o : m_.sort_orders) {
    if (o.fields == order.fields) {
      last_added_order_ = o.order_id;
      return Status::OK();
    }
    new_id = std::max(new_id, o.order_id + 1);
  }
  order.order_id = order.IsUnsorted() ? SortOrder::kUnsortedId : new_id;
  m_.sort_orders.push_back(order);
  last_added_order_ = order.order_id;
  changed_ = true;
  return Status::OK();
}

Status MetadataBuilder::SetDefaultSortOrder(int32_t id) {
  if (id == -1) {
    if (!last_added_order_) {
      return Status::InvalidArgument(
          "Cannot set last added sort order: no sort order has been added");
    }
    id = *last_added_order_;
  }
  if (m_.FindSortOrder(id) == nullptr) {
    return Status::InvalidArgument("Cannot set default sort order to unknown order: " + Str(id));
  }
  if (id != m_.default_sort_order_id) {
    m_.default_sort_order_id = id;
    changed_ = true;
  }
  return Status::OK();
}

Status MetadataBuilder::AddSnapshot(const Snapshot& snapshot) {
  if (m_.FindSnapshot(snapshot.snapshot_id) != nullptr) {
    return Status::InvalidArgument("Snapshot already exists for id: " +
                                   Str(snapshot.snapshot_id));
  }
  if (m_.format_version >= 2) {
    if (snapshot.operation().empty()) {
      return Status::InvalidArgument("snapshot " + Str(snapshot.snapshot_id) +
                                     ": summary is missing 'operation'");
    }
    if (snapshot.manifest_list.empty()) {
      return Status::InvalidArgument("snapshot " + Str(snapshot.snapshot_id) +
                                     ": missing required field 'manifest-list'");
    }
    if (snapshot.parent_snapshot_id && snapshot.sequence_number <= m_.last_sequence_number) {
      return Status::CommitFailed("Cannot add snapshot with sequence number " +
                                  Str(snapshot.sequence_number) +
                                  " older than last sequence number " +
                                  Str(m_.last_sequence_number));
    }
  }
  if (m_.format_version >= 3 && snapshot.first_row_id) {
    if (*snapshot.first_row_id < m_.next_row_id.value_or(0)) {
      return Status::CommitFailed("Cannot add a snapshot whose first-row-id " +
                                  Str(*snapshot.first_row_id) + " is behind next-row-id " +
                                  Str(m_.next_row_id.value_or(0)));
    }
    m_.next_row_id = *snapshot.first_row_id + snapshot.added_rows.value_or(0);
  }
  m_.snapshots.push_back(Freeze(snapshot));
  m_.last_sequence_number = std::max(m_.last_sequence_number, snapshot.sequence_number);
  added_snapshot_ms_ = snapshot.timestamp_ms;
  changed_ = true;
  return Status::OK();
}

Status MetadataBuilder::SetRef(const std::string& name, const SnapshotRef& ref) {
  if (name.empty()) return Status::InvalidArgument("ref name must not be empty");
  const Snapshot* snap = m_.FindSnapshot(ref.snapshot_id);
  if (snap == nullptr) {
    return Status::InvalidArgument("Cannot set " + name + " to unknown snapshot: " +
                                   Str(ref.snapshot_id));
  }
  if (name == "main" && !ref.is_branch()) {
    return Status::InvalidArgument("main must be a branch, not a tag");
  }
  auto it = m_.refs.find(name);
  if (it != m_.refs.end() && it->second == ref) return Status::OK();
  m_.refs[name] = ref;
  if (name == "main") {
    m_.current_snapshot_id = ref.snapshot_id;
    int64_t ts = added_snapshot_ms_ ? *added_snapshot_ms_ : now_ms_;
    m_.snapshot_log.push_back({ts, ref.snapshot_id});
  }
  changed_ = true;
  return Status::OK();
}

void MetadataBuilder::RemoveRef(const std::string& name) {
  if (m_.refs.erase(name) == 0) return;
  if (name == "main") m_.current_snapshot_id.reset();
  changed_ = true;
}

Status MetadataBuilder::RemoveSnapshots(const std::vector<int64_t>& ids) {
  std::set<int64_t> gone(ids.begin(), ids.end());
  bool any = EraseIf(&m_.snapshots, [&](const std::shared_ptr<const Snapshot>& s) {
    return gone.count(s->snapshot_id) > 0;
  });
  if (!any) return Status::OK();
  std::vector<std::string> dangling;
  for (const auto& [name, ref] : m_.refs) {
    if (gone.count(ref.snapshot_id)) dangling.push_back(name);
  }
  for (const std::string& name : dangling) RemoveRef(name);
  EraseIf(&m_.statistics, [&](const KeyedEntry& e) { return gone.count(e.snapshot_id) > 0; });
  EraseIf(&m_.partition_statistics,
          [&](const KeyedEntry& e) { return gone.count(e.snapshot_id) > 0; });
  snapshots_removed_ = true;
  changed_ = true;
  return Status::OK();
}

Status MetadataBuilder::RemoveSchemas(const std::vector<int64_t>& ids) {
  for (int64_t id : ids) {
    if (id == m_.current_schema_id) {
      return Status::InvalidArgument("Cannot remove current schema: " + Str(id));
    }
  }
  std::set<int64_t> gone(ids.begin(), ids.end());
  changed_ |= EraseIf(&m_.schemas, [&](const Schema& s) { return gone.count(s.schema_id) > 0; });
  return Status::OK();
}

Status MetadataBuilder::RemoveSpecs(const std::vector<int64_t>& ids) {
  for (int64_t id : ids) {
    if (id == m_.default_spec_id) {
      return Status::InvalidArgument("Cannot remove the default partition spec: " + Str(id));
    }
  }
  std::set<int64_t> gone(ids.begin(), ids.end());
  changed_ |=
      EraseIf(&m_.specs, [&](const PartitionSpec& s) { return gone.count(s.spec_id) > 0; });
  return Status::OK();
}

void MetadataBuilder::TrimMetadataLog() {
  int max_versions = kDefaultPreviousVersionsMax;
  auto it = m_.properties.find(kPreviousVersionsMax);
  if (it != m_.properties.end()) {
    try {
      max_versions = std::max(1, std::stoi(it->second));
    } catch (...) {  // std::stoi throws on garbage: keep the default
    }
  }
  auto& log = m_.metadata_log;
  if (log.size() > static_cast<size_t>(max_versions)) {
    log.erase(log.begin(), log.end() - max_versions);
  }
}

Result<TableMetadata> MetadataBuilder::Build() {
  if (m_.CurrentSchema() == nullptr) return Status::InvalidArgument("table has no current schema");
  if (m_.FindSpec(m_.default_spec_id) == nullptr) {
    return Status::InvalidArgument("table has no default partition spec");
  }
  if (m_.FindSortOrder(m_.default_sort_order_id) == nullptr) {
    return Status::InvalidArgument("table has no default sort order");
  }
  if (m_.location.empty()) return Status::InvalidArgument("table has no location");
  if (m_.table_uuid.empty()) return Status::InvalidArgument("table has no uuid");
  if (!changed_) return m_;
  m_.last_updated_ms = added_snapshot_ms_ ? *added_snapshot_ms_ : now_ms_;
  if (!base_location_.empty()) {
    m_.metadata_log.push_back({base_last_updated_ms_, base_location_});
  }
  TrimMetadataLog();
  if (snapshots_removed_) {
    std::vector<SnapshotLogEntry> kept;
    for (const SnapshotLogEntry& e : m_.snapshot_log) {
      if (m_.FindSnapshot(e.snapshot_id) != nullptr) {
        kept.push_back(e);
      } else {
        kept.clear();  // history before a removed snapshot is no longer a chain
      }
    }
    m_.snapshot_log = std::move(kept);
  }
  return m_;
}

Result<TableMetadata> NewTableMetadata(const NewTableRequest& r) {
  int format_version = 2;
  Properties props = r.properties;
  if (auto it = props.find("format-version"); it != props.end()) {
    const std::string& v = it->second;
    if (v != "1" && v != "2" && v != "3") {
      return Status::InvalidArgument("unsupported format-version '" + v + "' (supported: 1-3)");
    }
    format_version = v[0] - '0';
    props.erase(it);
  }
  int32_t next_id = 1;
  std::map<int32_t, int32_t> ids;
  Schema schema = r.schema.WithFreshIds(&next_id, &ids);
  schema.schema_id = 0;
  auto remap = [&](int32_t old, const char* what) -> Result<int32_t> {
    auto it = ids.find(old);
    if (it == ids.end()) {
      return Status::InvalidArgument(std::string("Cannot find source column for ") + what + ": " +
                                     Str(old));
    }
    return it->second;
  };
  PartitionSpec spec;
  int32_t field_id = PartitionSpec::kFirstFieldId;
  for (PartitionField f : r.spec.fields) {
    ASSIGN_OR_RETURN(f.source_id, remap(f.source_id, "partition field"));
    f.field_id = field_id++;
    spec.fields.push_back(std::move(f));
  }
  SortOrder order;
  for (SortField f : r.sort_order.fields) {
    ASSIGN_OR_RETURN(f.source_id, remap(f.source_id, "sort field"));
    order.fields.push_back(std::move(f));
  }
  order.order_id = order.IsUnsorted() ? SortOrder::kUnsortedId : 1;

  TableMetadata m = MetadataBuilder::Empty(format_version);
  m.table_uuid = r.uuid;
  m.location = r.location;
  m.last_updated_ms = r.now_ms;
  m.last_column_id = schema.highest_field_id;
  m.schemas = {std::move(schema)};
  m.current_schema_id = 0;
  m.last_partition_id = std::max(PartitionSpec::kFirstFieldId - 1, spec.LastAssignedFieldId());
  m.specs = {std::move(spec)};
  m.default_spec_id = 0;
  m.sort_orders = {std::move(order)};
  m.default_sort_order_id = m.sort_orders[0].order_id;
  m.properties = std::move(props);
  return m;
}

}  // namespace cairn::engine
