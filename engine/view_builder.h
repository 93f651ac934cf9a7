#pragma once

// ViewUpdate, ViewRequirement and ViewBuilder: commits to views (view spec; OpenAPI
// "ViewUpdate" / "ViewRequirement").
//
// Views share six update actions with tables (assign-uuid, upgrade-format-version,
// add-schema, set-location, set-properties, remove-properties), parsed by TableUpdate, and add
// add-view-version and set-current-view-version. The builder follows the view spec: version
// ids reuse an identical version or take max + 1, schema-id -1 means the last added schema,
// the version log records every change of the current version, and old versions expire past
// `version.history.num-entries` (default 10), never the current or newly added ones.

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/table_update.h"
#include "engine/view_metadata.h"

namespace cairn::engine {

struct ViewUpdate {
  enum class Kind { kShared, kAddViewVersion, kSetCurrentViewVersion };
  Kind kind = Kind::kShared;
  TableUpdate shared;                 // kShared: one of the six shared actions
  std::optional<ViewVersion> version; // kAddViewVersion
  int32_t version_id = 0;             // kSetCurrentViewVersion (-1: the last added)

  static Result<ViewUpdate> FromJson(const Json& json);
};

Result<std::vector<ViewUpdate>> ParseViewUpdates(const Json& array);

// assert-view-uuid, the one view requirement.
struct ViewRequirement {
  std::string uuid;
  static Result<ViewRequirement> FromJson(const Json& json);
  // CommitFailed "Requirement failed: view UUID does not match: ..." on mismatch.
  Status Check(const ViewMetadata& base) const;
};

Result<std::vector<ViewRequirement>> ParseViewRequirements(const Json& array);

class ViewBuilder {
 public:
  static constexpr const char* kHistorySize = "version.history.num-entries";
  static constexpr int kDefaultHistorySize = 10;

  // Starts from `base`; `now_ms` stamps version-log entries of versions without a timestamp.
  ViewBuilder(const ViewMetadata& base, int64_t now_ms) : m_(base), now_ms_(now_ms) {}
  // An empty view (no schema or version yet) of format version 1.
  static ViewMetadata Empty();

  Status Apply(const ViewUpdate& update);
  Status ApplyAll(const std::vector<ViewUpdate>& updates);
  bool changed() const { return changed_; }
  // InvalidArgument when the result has no current version, schema or location.
  Result<ViewMetadata> Build();

 private:
  Status AddSchema(const Schema& schema);
  Status AddVersion(const ViewVersion& version);
  Status SetCurrentVersion(int32_t id);
  void ExpireVersions();

  ViewMetadata m_;
  int64_t now_ms_;
  bool changed_ = false;
  std::optional<int32_t> last_added_schema_;
  std::optional<int32_t> last_added_version_;
  std::set<int32_t> added_versions_;
};

}  // namespace cairn::engine
