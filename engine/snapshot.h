#pragma once

// Snapshot and SnapshotRef (spec.md "Snapshots", "Snapshot References").

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/json_util.h"

namespace cairn::engine {

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;           // empty only for v1 snapshots that list manifests
  std::vector<std::string> manifests;  // v1 only
  Properties summary;                  // holds "operation"
  std::optional<int32_t> schema_id;
  std::optional<int64_t> first_row_id;  // v3
  std::optional<int64_t> added_rows;    // v3
  std::optional<std::string> key_id;    // v3 encryption
  // This snapshot's JSON text as v2+ documents spell it, made once by Freeze(): documents
  // are written by concatenating these, so a commit does not re-serialize old snapshots.
  std::string json;

  // `format_version` decides which fields are required (v2+: sequence-number, and a
  // manifest-list unless the snapshot predates an upgrade from v1 and lists manifests).
  static Result<Snapshot> FromJson(const Json& json, int format_version);
  Json ToJson(int format_version) const;
  const std::string& operation() const;
};

// A snapshot made immutable and shareable between table versions, its JSON text cached.
std::shared_ptr<const Snapshot> Freeze(Snapshot snapshot);

struct SnapshotRef {
  int64_t snapshot_id = 0;
  std::string type = "branch";  // "branch" | "tag"
  std::optional<int32_t> min_snapshots_to_keep;
  std::optional<int64_t> max_snapshot_age_ms;
  std::optional<int64_t> max_ref_age_ms;

  static Result<SnapshotRef> FromJson(const Json& json);
  Json ToJson() const;
  bool is_branch() const { return type == "branch"; }
  bool operator==(const SnapshotRef&) const = default;
};

}  // namespace cairn::engine
