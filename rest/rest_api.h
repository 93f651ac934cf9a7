#pragma once

// RestApi: the Iceberg REST catalog API (OpenAPI spec in shared/spec/iceberg) over a Catalog,
// plus /health and /ready for operators. Handlers parse and validate the request, call the
// Catalog, and render the response; business rules live in the Catalog.
//
// Thread-safe: Handle() may run on many threads at once.

#include <string>

#include "catalog/catalog.h"
#include "engine/json_util.h"
#include "rest/http.h"
#include "rest/router.h"

namespace cairn::rest {

class RestApi {
 public:
  explicit RestApi(catalog::Catalog* catalog);

  // Answers one request. Never throws.
  HttpResponse Handle(const HttpRequest& request) const;

  // The routes advertised in /v1/config.
  std::vector<std::string> Endpoints() const { return router_.Endpoints(); }

 private:
  void AddConfigRoutes();
  void AddNamespaceRoutes();
  void AddTableRoutes();
  void AddViewRoutes();

  catalog::Catalog* catalog_;
  Router router_;
};

// Helpers shared by the route files.
HttpResponse JsonResponse(int status, const engine::Json& body);
HttpResponse NoContent();
// Parses the request body as a JSON object; InvalidArgument naming the problem.
engine::Result<engine::Json> ParseBody(const HttpRequest& request);
// The {namespace} path parameter: levels joined by 0x1F.
catalog::Namespace NamespaceParam(const PathParams& params);
engine::Json NamespaceToJson(const catalog::Namespace& ns);
engine::Result<catalog::Namespace> NamespaceFromJson(const engine::Json& value, const char* what);
// A TableIdentifier object {"namespace": [...], "name": "..."}.
engine::Result<catalog::TableIdentifier> IdentifierFromJson(const engine::Json& value,
                                                            const char* what);
// pageToken / pageSize query parameters.
engine::Result<catalog::PageRequest> PageParams(const HttpRequest& request);
// Adds "next-page-token" when there is a next page.
void AddNextPageToken(const std::optional<std::string>& token, engine::Json* body);
// ListTablesResponse (also the view listing): the names of `page` as identifiers in `ns`.
HttpResponse IdentifiersResponse(const catalog::Namespace& ns,
                                 const catalog::Page<std::string>& page);
// A RenameTableRequest body: {"source": identifier, "destination": identifier}.
struct RenameRequest {
  catalog::TableIdentifier from, to;
};
engine::Result<RenameRequest> ParseRename(const HttpRequest& request);

}  // namespace cairn::rest
