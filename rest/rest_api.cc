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
  // Written as text: a namespace of 10 000 tables is one answer, and a tree of one small
  // object per table cost more than the query.
  const std::string prefix = "{\"namespace\":" + NamespaceToJson(ns).dump() + ",\"name\":";
  std::string text = "{\"identifiers\":[";
  text.reserve(text.size() + page.items.size() * (prefix.size() + 24) + 64);
  for (size_t i = 0; i < page.items.size(); ++i) {
    if (i > 0) text += ',';
    text += prefix;
    engine::AppendJsonString(page.items[i], &text);
    text += '}';
  }
  text += ']';
  if (page.next_token) {
    text += ",\"next-page-token\":";
    engine::AppendJsonString(*page.next_token, &text);
  }
  text += '}';
  HttpResponse res;
  res.body = std::move(text);
  return res;
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
