#pragma once

// PartitionSpec: how a table's rows map to partitions (spec.md "Partitioning").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/json_util.h"

namespace cairn::engine {

struct PartitionField {
  int32_t source_id = 0;
  std::optional<int32_t> field_id;  // absent only in v1 documents and unbound requests
  std::string name;
  std::string transform;  // "identity", "bucket[16]", "day", ...

  bool operator==(const PartitionField&) const = default;
};

struct PartitionSpec {
  static constexpr int32_t kFirstFieldId = 1000;  // partition field ids start here

  int32_t spec_id = 0;
  std::vector<PartitionField> fields;

  // Parses {"spec-id": N, "fields": [...]}; spec-id defaults to `default_id`.
  static Result<PartitionSpec> FromJson(const Json& json, int32_t default_id = 0);
  // Parses a bare field array (v1 "partition-spec").
  static Result<std::vector<PartitionField>> FieldsFromJson(const Json& array);
  Json ToJson() const;
  Json FieldsToJson() const;

  // Largest field id, or kFirstFieldId - 1 when there is none.
  int32_t LastAssignedFieldId() const;
  // Same fields by name, transform and source (field ids aside: a requested spec may lack
  // them), in the same order.
  bool CompatibleWith(const PartitionSpec& other) const;
};

}  // namespace cairn::engine
