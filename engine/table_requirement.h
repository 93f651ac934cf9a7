#pragma once

// TableRequirement: one entry of a commit's "requirements" (OpenAPI "TableRequirement").
//
// Check() tests it against the table's current metadata. A failed requirement means the
// commit was built on state that no longer holds: CommitFailed (409), with a message in the
// words Java clients and Apache's compatibility kit expect ("Requirement failed: ...").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/json_util.h"
#include "engine/table_metadata.h"

namespace cairn::engine {

struct TableRequirement {
  enum class Kind {
    kAssertCreate,
    kAssertTableUuid,
    kAssertRefSnapshotId,
    kAssertLastAssignedFieldId,
    kAssertCurrentSchemaId,
    kAssertLastAssignedPartitionId,
    kAssertDefaultSpecId,
    kAssertDefaultSortOrderId,
  };

  Kind kind = Kind::kAssertCreate;
  std::string text;               // uuid or ref name
  std::optional<int64_t> number;  // the expected id; for a ref, nullopt = "must not exist"

  // InvalidArgument for an unknown "type" or malformed fields.
  static Result<TableRequirement> FromJson(const Json& json);

  // `base` is the table's current metadata, or nullptr when the table does not exist.
  // OK, or CommitFailed explaining what changed.
  Status Check(const TableMetadata* base) const;
};

Result<std::vector<TableRequirement>> ParseTableRequirements(const Json& array);

// True if `requirements` contains assert-create (the commit creates the table).
bool HasAssertCreate(const std::vector<TableRequirement>& requirements);

}  // namespace cairn::engine
