#include "engine/partition_spec.h"

#include <algorithm>

namespace cairn::engine {

Result<std::vector<PartitionField>> PartitionSpec::FieldsFromJson(const Json& array) {
  if (!array.is_array()) return Status::InvalidArgument("partition fields must be an array");
  std::vector<PartitionField> out;
  for (const Json& f : array) {
    PartitionField pf;
    ASSIGN_OR_RETURN(pf.source_id, GetInt32(f, "source-id"));
    ASSIGN_OR_RETURN(pf.field_id, GetOptInt32(f, "field-id"));
    ASSIGN_OR_RETURN(pf.name, GetString(f, "name"));
    ASSIGN_OR_RETURN(pf.transform, GetString(f, "transform"));
    if (pf.name.empty()) return Status::InvalidArgument("partition field name must not be empty");
    out.push_back(std::move(pf));
  }
  return out;
}

Result<PartitionSpec> PartitionSpec::FromJson(const Json& json, int32_t default_id) {
  if (!json.is_object()) return Status::InvalidArgument("partition spec must be an object");
  PartitionSpec spec;
  ASSIGN_OR_RETURN(std::optional<int32_t> id, GetOptInt32(json, "spec-id"));
  spec.spec_id = id.value_or(default_id);
  ASSIGN_OR_RETURN(const Json* fields, GetArray(json, "fields"));
  ASSIGN_OR_RETURN(spec.fields, FieldsFromJson(*fields));
  return spec;
}

Json PartitionSpec::FieldsToJson() const {
  Json arr = Json::array();
  for (const PartitionField& f : fields) {
    Json j = {{"source-id", f.source_id}, {"name", f.name}, {"transform", f.transform}};
    if (f.field_id) j["field-id"] = *f.field_id;
    arr.push_back(std::move(j));
  }
  return arr;
}

Json PartitionSpec::ToJson() const { return {{"spec-id", spec_id}, {"fields", FieldsToJson()}}; }

bool PartitionSpec::CompatibleWith(const PartitionSpec& other) const {
  if (fields.size() != other.fields.size()) return false;
  for (size_t i = 0; i < fields.size(); ++i) {
    const PartitionField& a = fields[i];
    const PartitionField& b = other.fields[i];
    if (a.source_id != b.source_id || a.transform != b.transform || a.name != b.name) {
      return false;
    }
  }
  return true;
}

int32_t PartitionSpec::LastAssignedFieldId() const {
  int32_t last = kFirstFieldId - 1;
  for (const PartitionField& f : fields) last = std::max(last, f.field_id.value_or(last));
  return last;
}

}  // namespace cairn::engine
