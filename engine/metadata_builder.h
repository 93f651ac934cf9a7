#pragma once

// MetadataBuilder: applies table updates to a base TableMetadata under the spec's rules, and
// NewTableMetadata: the metadata of a freshly created table.
//
// Rules applied (spec.md and the Java reference): schema/spec/sort-order id assignment and
// reuse of identical ones, "-1 means the last one added", sequence numbers that only grow,
// the snapshot log on every change of main, the metadata log of previous files trimmed to
// `write.metadata.previous-versions-max` (default 100), refs and statistics of removed
// snapshots dropped.
//
// Errors: InvalidArgument for an update that cannot apply (unknown ids, downgrades, removing
// the current schema...); CommitFailed where the update shows the client's view is stale
// (an added snapshot whose sequence number is not newer than the table's).
//
// Not thread-safe; one builder per commit attempt.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/table_metadata.h"
#include "engine/table_update.h"

namespace cairn::engine {

class MetadataBuilder {
 public:
  static constexpr const char* kPreviousVersionsMax = "write.metadata.previous-versions-max";
  static constexpr int kDefaultPreviousVersionsMax = 100;

  // Starts from a copy of `base`, which was read from `base_location` ("" when it has no file
  // yet). `now_ms` stamps the change.
  MetadataBuilder(const TableMetadata& base, std::string base_location, int64_t now_ms);

  // The starting point of a table created by a commit (assert-create): no schema, spec or
  // sort order yet, `format_version` as requested.
  static TableMetadata Empty(int format_version);

  Status Apply(const TableUpdate& update);
  Status ApplyAll(const std::vector<TableUpdate>& updates);

  // True once any update changed something.
  bool changed() const { return changed_; }

  // Finishes the document: last-updated-ms, metadata log, snapshot log. InvalidArgument if the
  // result is not a complete table (no current schema, default spec or sort order, location).
  Result<TableMetadata> Build();

 private:
  Status UpgradeFormatVersion(int version);
  Status AddSchema(const TableUpdate& u);
  Status SetCurrentSchema(int32_t id);
  Status AddSpec(const PartitionSpec& spec);
  Status SetDefaultSpec(int32_t id);
  Status AddSortOrder(const SortOrder& order);
  Status SetDefaultSortOrder(int32_t id);
  Status AddSnapshot(const Snapshot& snapshot);
  Status SetRef(const std::string& name, const SnapshotRef& ref);
  Status RemoveSnapshots(const std::vector<int64_t>& ids);
  void RemoveRef(const std::string& name);
  Status RemoveSchemas(const std::vector<int64_t>& ids);
  Status RemoveSpecs(const std::vector<int64_t>& ids);
  Status CheckSourceIds(const std::vector<int32_t>& ids, const char* what) const;
  void TrimMetadataLog();

  TableMetadata m_;
  std::string base_location_;
  int64_t base_last_updated_ms_;
  int64_t now_ms_;
  bool changed_ = false;
  bool snapshots_removed_ = false;
  std::optional<int64_t> added_snapshot_ms_;
  std::optional<int32_t> last_added_schema_;
  std::optional<int32_t> last_added_spec_;
  std::optional<int32_t> last_added_order_;
};

// What a create-table request asks for, before ids are assigned.
struct NewTableRequest {
  Schema schema;
  PartitionSpec spec;  // field ids may be absent; empty = unpartitioned
  SortOrder sort_order;  // empty = unsorted
  std::string location;
  Properties properties;  // "format-version" here picks the format version (default 2)
  std::string uuid;
  int64_t now_ms = 0;
};

// Builds the first metadata of a new table with fresh ids (fields from 1, partition fields
// from 1000, schema and spec id 0, sort order 1 unless unsorted). InvalidArgument when the
// spec or sort order names a column the schema lacks, or the format version is unsupported.
Result<TableMetadata> NewTableMetadata(const NewTableRequest& request);

}  // namespace cairn::engine
