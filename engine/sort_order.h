#pragma once

// SortOrder: how data files of a table are sorted (spec.md "Sorting"). Order id 0 is reserved
// for the unsorted order.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/json_util.h"

namespace cairn::engine {

struct SortField {
  int32_t source_id = 0;
  std::string transform;
  std::string direction;   // "asc" | "desc"
  std::string null_order;  // "nulls-first" | "nulls-last"

  bool operator==(const SortField&) const = default;
};

struct SortOrder {
  static constexpr int32_t kUnsortedId = 0;

  int32_t order_id = 0;
  std::vector<SortField> fields;

  static Result<SortOrder> FromJson(const Json& json);
  Json ToJson() const;
  bool IsUnsorted() const { return fields.empty(); }
};

}  // namespace cairn::engine
