#include "rest/rest_api.h"

#include "rest/error_mapping.h"

namespace cairn::rest {

using engine::Json;
using engine::Result;
using engine::Status;

RestApi::RestApi(catalog::Catalog* catalog) : catalog_(catalog) {
  AddConfigRoutes();
  AddNamespaceRoutes();
  AddTableRoutes();
  AddViewRoutes();
}

HttpResponse RestApi::Handle(const HttpRequest& request) const {
  try {
    return router_.Dispatch(request);
  } catch (const std::exception& e) {
    return ErrorResponse(500, "InternalServerError", "internal error while serving " +
                                                         request.method + " " + request.raw_path);
  }
}

HttpResponse JsonResponse(int status, const Json& body) {
  HttpResponse res;
  res.status = status;
  res.body = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  return res;
}

HttpResponse NoContent() {
  HttpResponse res;
  res.status = 204;
  return res;
}

Result<Json> ParseBody(const HttpRequest& request) {
  if (request.body.empty()) return Status::InvalidArgument("request body is empty");
  auto json = engine::ParseJson(request.body);
  if (!json.ok()) return Status::InvalidArgument("request body is malformed JSON");
  if (!json->is_object()) return Status::InvalidArgument("request body must be a JSON object");
  return json;
}

catalog::Namespace NamespaceParam(const PathParams& params) {
  catalog::Namespace ns;
  const std::string& joined = params.at("namespace");
  size_t start = 0;
  for (;;) {
    size_t sep = joined.find('\x1f', start);
    ns.push_back(joined.substr(start, sep - start));
    if (sep == std::string::npos) return ns;
    start = sep + 1;
  }
}

Json NamespaceToJson(const catalog::Namespace& ns) {
  Json arr = Json::array();
  for (const std::string& level : ns) arr.push_back(level);
  return arr;
}

Result<catalog::Namespace> NamespaceFromJson(const Json& value, const char* what) {
  ASSIGN_OR_RETURN(catalog::Namespace ns, engine::AsStringList(value, what));
  RETURN_IF_ERROR(catalog::ValidateNamespace(ns));
  return ns;
}

Result<catalog::TableIdentifier> IdentifierFromJson(const Json& value, const char* what) {
  if (!value.is_object()) {
    return Status::InvalidArgument(std::string("field '") + what + "' must be an object");
  }
  catalog::TableIdentifier id;
  ASSIGN_OR_RETURN(const Json* ns, engine::GetField(value, "namespace"));
  ASSIGN_OR_RETURN(id.ns, NamespaceFromJson(*ns, "field 'namespace'"));
  ASSIGN_OR_RETURN(id.name, engine::GetString(value, "name"));
  return id;
}

Result<catalog::PageRequest> PageParams(const HttpRequest& request) {
  catalog::PageRequest page;
  page.token = request.Query("pageToken");
  std::string size = request.Query("pageSize");
  if (!size.empty()) {
    char* end = nullptr;
    long n = std::strtol(size.c_str(), &end, 10);
    if (*end != '\0' || n < 1 || n > 1'000'000) {
      return Status::InvalidArgument("pageSize must be a positive integer, got '" + size + "'");
    }
    page.size = static_cast<int>(n);
  }
  return page;
}

void AddNextPageToken(const std::optional<std::string>& token, Json* body) {
  if (token) (*body)["next-page-token"] = *token;
}

HttpResponse IdentifiersResponse(const catalog::Namespace& ns,
                                 const catalog::Page<std::string>& page) {
  Json ids = Json::array();
  for (const std::string& name : page.items) {
    ids.push_back({{"namespace", NamespaceToJson(ns)}, {"name", name}});
  }
  Json body = {{"identifiers", std::move(ids)}};
  AddNextPageToken(page.next_token, &body);
  return JsonResponse(200, body);
}

Result<RenameRequest> ParseRename(const HttpRequest& request) {
  ASSIGN_OR_RETURN(Json body, ParseBody(request));
  ASSIGN_OR_RETURN(const Json* source, engine::GetField(body, "source"));
  ASSIGN_OR_RETURN(const Json* destination, engine::GetField(body, "destination"));
  RenameRequest r;
  ASSIGN_OR_RETURN(r.from, IdentifierFromJson(*source, "source"));
  ASSIGN_OR_RETURN(r.to, IdentifierFromJson(*destination, "destination"));
  return r;
}

}  // namespace cairn::rest
