#include "engine/schema.h"

#include <algorithm>
#include <set>

namespace cairn::engine {
namespace {

Status ValidateType(const Json& type, std::set<int32_t>* ids, const std::string& where);

Status CheckId(const Json& obj, const char* key, std::set<int32_t>* ids,
               const std::string& where) {
  ASSIGN_OR_RETURN(int32_t id, GetInt32(obj, key));
  if (!ids->insert(id).second) {
    return Status::InvalidArgument(where + ": duplicate field id " + std::to_string(id));
  }
  return Status::OK();
}

Status ValidateStruct(const Json& st, std::set<int32_t>* ids, const std::string& where) {
  ASSIGN_OR_RETURN(const Json* fields, GetArray(st, "fields"));
  for (const Json& f : *fields) {
    if (!f.is_object()) return Status::InvalidArgument(where + ": a field must be an object");
    RETURN_IF_ERROR(CheckId(f, "id", ids, where).WithPrefix(where));
    ASSIGN_OR_RETURN(std::string name, GetString(f, "name"));
    RETURN_IF_ERROR(GetBool(f, "required").status().WithPrefix(where + "." + name));
    ASSIGN_OR_RETURN(const Json* type, GetField(f, "type"));
    RETURN_IF_ERROR(ValidateType(*type, ids, where + "." + name));
  }
  return Status::OK();
}

Status ValidateType(const Json& type, std::set<int32_t>* ids, const std::string& where) {
  if (type.is_string()) return Status::OK();  // a primitive such as "long" or "decimal(9,2)"
  if (!type.is_object()) {
    return Status::InvalidArgument(where + ": type must be a string or an object");
  }
  ASSIGN_OR_RETURN(std::string kind, GetString(type, "type"));
  if (kind == "struct") return ValidateStruct(type, ids, where);
  if (kind == "list") {
    RETURN_IF_ERROR(CheckId(type, "element-id", ids, where).WithPrefix(where));
    ASSIGN_OR_RETURN(const Json* element, GetField(type, "element"));
    return ValidateType(*element, ids, where + ".element");
  }
  if (kind == "map") {
    RETURN_IF_ERROR(CheckId(type, "key-id", ids, where).WithPrefix(where));
    RETURN_IF_ERROR(CheckId(type, "value-id", ids, where).WithPrefix(where));
    ASSIGN_OR_RETURN(const Json* key, GetField(type, "key"));
    ASSIGN_OR_RETURN(const Json* value, GetField(type, "value"));
    RETURN_IF_ERROR(ValidateType(*key, ids, where + ".key"));
    return ValidateType(*value, ids, where + ".value");
  }
  return Status::InvalidArgument(where + ": unknown nested type '" + kind + "'");
}

const Json* FindIn(const Json& type, int32_t id);

const Json* FindInFields(const Json& fields, int32_t id) {
  for (const Json& f : fields) {
    if (f.value("id", -1) == id) return &f;
    if (const Json* hit = FindIn(f["type"], id)) return hit;
  }
  return nullptr;
}

const Json* FindIn(const Json& type, int32_t id) {
  if (!type.is_object()) return nullptr;
  const std::string kind = type.value("type", "");
  if (kind == "struct") return FindInFields(type["fields"], id);
  if (kind == "list") return FindIn(type["element"], id);
  if (kind == "map") {
    if (const Json* hit = FindIn(type["key"], id)) return hit;
    return FindIn(type["value"], id);
  }
  return nullptr;
}

void Reassign(Json* type, int32_t* next, std::map<int32_t, int32_t>* map);

void ReassignFields(Json* fields, int32_t* next, std::map<int32_t, int32_t>* map) {
  for (Json& f : *fields) {
    int32_t id = (*next)++;
    (*map)[f["id"].get<int32_t>()] = id;
    f["id"] = id;
  }
  for (Json& f : *fields) Reassign(&f["type"], next, map);
}

void Reassign(Json* type, int32_t* next, std::map<int32_t, int32_t>* map) {
  if (!type->is_object()) return;
  const std::string kind = type->value("type", "");
  if (kind == "struct") {
    ReassignFields(&(*type)["fields"], next, map);
  } else if (kind == "list") {
    int32_t id = (*next)++;
    (*map)[(*type)["element-id"].get<int32_t>()] = id;
    (*type)["element-id"] = id;
    Reassign(&(*type)["element"], next, map);
  } else if (kind == "map") {
    int32_t key = (*next)++;
    int32_t value = (*next)++;
    (*map)[(*type)["key-id"].get<int32_t>()] = key;
    (*map)[(*type)["value-id"].get<int32_t>()] = value;
    (*type)["key-id"] = key;
    (*type)["value-id"] = value;
    Reassign(&(*type)["key"], next, map);
    Reassign(&(*type)["value"], next, map);
  }
}

}  // namespace

Result<Schema> Schema::FromJson(const Json& json, int32_t default_id) {
  if (!json.is_object()) return Status::InvalidArgument("schema must be an object");
  ASSIGN_OR_RETURN(std::string type, GetString(json, "type"));
  if (type != "struct") {
    return Status::InvalidArgument("schema type must be 'struct', got '" + type + "'");
  }
  Schema s;
  ASSIGN_OR_RETURN(std::optional<int32_t> id, GetOptInt32(json, "schema-id"));
  s.schema_id = id.value_or(default_id);
  ASSIGN_OR_RETURN(s.identifier_field_ids, GetOptInt32List(json, "identifier-field-ids"));
  std::set<int32_t> ids;
  RETURN_IF_ERROR(ValidateStruct(json, &ids, "schema"));
  s.fields = json["fields"];
  s.highest_field_id = ids.empty() ? 0 : *ids.rbegin();
  for (int32_t fid : s.identifier_field_ids) {
    if (ids.count(fid) == 0) {
      return Status::InvalidArgument("schema identifier-field-ids references unknown field id " +
                                     std::to_string(fid));
    }
  }
  return s;
}

Json Schema::ToJson() const {
  Json j = {{"type", "struct"}, {"schema-id", schema_id}, {"fields", fields}};
  if (!identifier_field_ids.empty()) j["identifier-field-ids"] = identifier_field_ids;
  return j;
}

bool Schema::SameStructure(const Schema& other) const {
  return fields == other.fields && identifier_field_ids == other.identifier_field_ids;
}

const Json* Schema::FindField(int32_t id) const { return FindInFields(fields, id); }

Schema Schema::WithFreshIds(int32_t* next_id, std::map<int32_t, int32_t>* old_to_new) const {
  Schema out = *this;
  ReassignFields(&out.fields, next_id, old_to_new);
  out.highest_field_id = *next_id - 1;
  for (int32_t& fid : out.identifier_field_ids) fid = (*old_to_new)[fid];
  return out;
}

}  // namespace cairn::engine
