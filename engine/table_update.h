#pragma once

// TableUpdate: one entry of a commit's "updates" list (OpenAPI "TableUpdate"), parsed and
// validated for shape. What it does to a table is MetadataBuilder's business.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/json_util.h"
#include "engine/partition_spec.h"
#include "engine/schema.h"
#include "engine/snapshot.h"
#include "engine/sort_order.h"
#include "engine/table_metadata.h"

namespace cairn::engine {

struct TableUpdate {
  enum class Kind {
    kAssignUuid,
    kUpgradeFormatVersion,
    kAddSchema,
    kSetCurrentSchema,
    kRemoveSchemas,
    kAddSpec,
    kSetDefaultSpec,
    kRemovePartitionSpecs,
    kAddSortOrder,
    kSetDefaultSortOrder,
    kAddSnapshot,
    kSetSnapshotRef,
    kRemoveSnapshots,
    kRemoveSnapshotRef,
    kSetLocation,
    kSetProperties,
    kRemoveProperties,
    kSetStatistics,
    kRemoveStatistics,
    kSetPartitionStatistics,
    kRemovePartitionStatistics,
    kAddEncryptionKey,
    kRemoveEncryptionKey,
  };

  Kind kind = Kind::kAssignUuid;
  std::string action;  // the wire name, e.g. "add-snapshot"

  // Payload: only the members that `kind` uses are set.
  std::string text;       // uuid, location, ref name, encryption key id
  int64_t number = 0;     // format version, schema/spec/sort-order id, snapshot id
  std::optional<int32_t> last_column_id;  // add-schema (deprecated field)
  std::vector<int64_t> ids;               // remove-schemas / -partition-specs / -snapshots
  Properties updates;                     // set-properties
  std::vector<std::string> removals;      // remove-properties
  std::optional<Schema> schema;
  std::optional<PartitionSpec> spec;
  std::optional<SortOrder> sort_order;
  std::optional<Snapshot> snapshot;
  std::optional<SnapshotRef> ref;
  std::optional<KeyedEntry> entry;  // statistics, partition statistics, encryption key

  // InvalidArgument for an unknown "action" or a malformed payload, naming which.
  static Result<TableUpdate> FromJson(const Json& json);
};

// Parses a JSON array of updates.
Result<std::vector<TableUpdate>> ParseTableUpdates(const Json& array);

}  // namespace cairn::engine
