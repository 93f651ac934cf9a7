#pragma once

// TableMetadata: one Iceberg table metadata document (format versions 1, 2 and 3), with JSON
// serde faithful to the table spec.
//
// Documents are immutable once written, so instances are shared as
// std::shared_ptr<const TableMetadata>; snapshots are shared between versions of a table so
// that copying metadata for an update does not copy every snapshot.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/json_util.h"
#include "engine/partition_spec.h"
#include "engine/schema.h"
#include "engine/snapshot.h"
#include "engine/sort_order.h"

namespace cairn::engine {

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
};

// A statistics, partition-statistics or encryption-key entry: its key plus the JSON object the
// spec defines, kept whole.
struct KeyedEntry {
  int64_t snapshot_id = 0;  // statistics files
  std::string key_id;       // encryption keys
  Json json;
};

struct TableMetadata {
  static constexpr int kMinFormatVersion = 1;
  static constexpr int kMaxFormatVersion = 3;
  static constexpr int64_t kNoSnapshot = -1;

  int format_version = 2;
  std::string table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<Schema> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpec> specs;
  int32_t default_spec_id = 0;
  int32_t last_partition_id = PartitionSpec::kFirstFieldId - 1;
  std::vector<SortOrder> sort_orders;
  int32_t default_sort_order_id = 0;
  Properties properties;
  std::optional<int64_t> current_snapshot_id;
  std::vector<std::shared_ptr<const Snapshot>> snapshots;
  std::map<std::string, SnapshotRef> refs;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  std::vector<KeyedEntry> statistics;
  std::vector<KeyedEntry> partition_statistics;
  std::optional<int64_t> next_row_id;  // v3
  std::vector<KeyedEntry> encryption_keys;

  // Lookups; nullptr when absent.
  const Schema* FindSchema(int32_t id) const;
  const Schema* CurrentSchema() const { return FindSchema(current_schema_id); }
  const PartitionSpec* FindSpec(int32_t id) const;
  const SortOrder* FindSortOrder(int32_t id) const;
  const Snapshot* FindSnapshot(int64_t id) const;
  const Snapshot* CurrentSnapshot() const;

  // Parses and validates a document. InvalidArgument naming the problem: unsupported format
  // version, missing required fields, dangling current ids, refs to unknown snapshots, ...
  static Result<TableMetadata> FromJson(const Json& json);
  static Result<TableMetadata> FromJsonText(std::string_view text);

  // The document as the spec lays it out for `format_version` (v1 also carries the legacy
  // "schema" and "partition-spec" fields).
  Json ToJson() const;

  // The same document as ToJson(), as text, without a tree of its history: each snapshot's
  // cached text (see Freeze) is copied and the logs are written directly, so the cost of
  // writing a document is copying it, not re-serializing every snapshot.
  std::string ToJsonText() const;

  // ToJsonText() with only what `snapshots=refs` returns: snapshots a ref points to.
  std::string ToJsonRefsOnlyText() const;
};

}  // namespace cairn::engine
