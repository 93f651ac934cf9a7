#include "engine/sort_order.h"

namespace cairn::engine {

Result<SortOrder> SortOrder::FromJson(const Json& json) {
  if (!json.is_object()) return Status::InvalidArgument("sort order must be an object");
  SortOrder order;
  ASSIGN_OR_RETURN(order.order_id, GetInt32(json, "order-id"));
  ASSIGN_OR_RETURN(const Json* fields, GetArray(json, "fields"));
  for (const Json& f : *fields) {
    SortField sf;
    ASSIGN_OR_RETURN(sf.source_id, GetInt32(f, "source-id"));
    ASSIGN_OR_RETURN(sf.transform, GetString(f, "transform"));
    ASSIGN_OR_RETURN(sf.direction, GetString(f, "direction"));
    ASSIGN_OR_RETURN(sf.null_order, GetString(f, "null-order"));
    if (sf.direction != "asc" && sf.direction != "desc") {
      return Status::InvalidArgument("sort direction must be 'asc' or 'desc', got '" +
                                     sf.direction + "'");
    }
    if (sf.null_order != "nulls-first" && sf.null_order != "nulls-last") {
      return Status::InvalidArgument(
          "sort null-order must be 'nulls-first' or 'nulls-last', got '" + sf.null_order + "'");
    }
    order.fields.push_back(std::move(sf));
  }
  return order;
}

Json SortOrder::ToJson() const {
  Json arr = Json::array();
  for (const SortField& f : fields) {
    arr.push_back({{"source-id", f.source_id},
                   {"transform", f.transform},
                   {"direction", f.direction},
                   {"null-order", f.null_order}});
  }
  return {{"order-id", order_id}, {"fields", std::move(arr)}};
}

}  // namespace cairn::engine
