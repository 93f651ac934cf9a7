#pragma once

// Schema: one Iceberg table schema (a struct type with a schema id).
//
// The struct's fields are kept as the JSON the spec defines (nested struct/list/map types,
// defaults, docs), validated on parse; cairn itself needs only ids and names from them.

#include <cstdint>
#include <map>
#include <vector>

#include "engine/json_util.h"

namespace cairn::engine {

struct Schema {
  int32_t schema_id = 0;
  std::vector<int32_t> identifier_field_ids;
  Json fields = Json::array();  // the struct's "fields", as in the spec
  int32_t highest_field_id = 0;  // derived: the largest field id at any depth

  // Parses a schema object ({"type": "struct", "fields": [...]}). `schema-id` defaults to
  // `default_id` when absent. InvalidArgument naming the problem otherwise.
  static Result<Schema> FromJson(const Json& json, int32_t default_id = 0);
  Json ToJson() const;

  // True if both have the same fields and identifier ids (ids of the schemas aside).
  bool SameStructure(const Schema& other) const;

  // The field object with `id` at any depth, or nullptr.
  const Json* FindField(int32_t id) const;

  // A copy whose field ids (at every depth) are reassigned from `next_id` upward the way
  // Iceberg assigns fresh ids (each struct's fields first, then their children). `old_to_new`
  // receives the mapping.
  Schema WithFreshIds(int32_t* next_id, std::map<int32_t, int32_t>* old_to_new) const;
};

}  // namespace cairn::engine
