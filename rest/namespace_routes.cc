// /v1/{prefix}/namespaces...
#include "rest/error_mapping.h"
#include "rest/idempotency.h"
#include "rest/rest_api.h"

namespace cairn::rest {
namespace {

using engine::Json;
using engine::Result;
using engine::Status;

Result<catalog::Namespace> ParentParam(const HttpRequest& request) {
  std::string parent = request.Query("parent");
  if (parent.empty()) return catalog::Namespace{};
  return NamespaceParam({{"namespace", parent}});
}

HttpResponse ListNamespaces(catalog::Catalog* c, const HttpRequest& request) {
  auto parent = ParentParam(request);
  auto page = PageParams(request);
  if (!page.ok()) return StatusResponse(page.status());
  auto listed = c->ListNamespaces(*parent, *page);
  if (!listed.ok()) return StatusResponse(listed.status());
  Json namespaces = Json::array();
  for (const auto& ns : listed->items) namespaces.push_back(NamespaceToJson(ns));
  Json body = {{"namespaces", std::move(namespaces)}};
  AddNextPageToken(listed->next_token, &body);
  return JsonResponse(200, body);
}

HttpResponse CreateNamespace(catalog::Catalog* c, const HttpRequest& request) {
  auto body = ParseBody(request);
  if (!body.ok()) return StatusResponse(body.status());
  auto ns_json = engine::GetField(*body, "namespace");
  if (!ns_json.ok()) return StatusResponse(ns_json.status());
  auto ns = NamespaceFromJson(**ns_json, "field 'namespace'");
  if (!ns.ok()) return StatusResponse(ns.status());
  auto props = engine::GetOptStringMap(*body, "properties");
  if (!props.ok()) return StatusResponse(props.status());
  Status st = c->CreateNamespace(*ns, *props);
  if (!st.ok()) return StatusResponse(st);
  return JsonResponse(200, {{"namespace", NamespaceToJson(*ns)}, {"properties", *props}});
}

HttpResponse LoadNamespace(catalog::Catalog* c, const PathParams& params) {
  catalog::Namespace ns = NamespaceParam(params);
  auto props = c->LoadNamespace(ns);
  if (!props.ok()) return StatusResponse(props.status());
  return JsonResponse(200, {{"namespace", NamespaceToJson(ns)}, {"properties", *props}});
}

HttpResponse NamespaceExists(catalog::Catalog* c, const PathParams& params) {
  auto props = c->LoadNamespace(NamespaceParam(params));
  if (!props.ok()) return StatusResponse(props.status());
  return NoContent();
}

HttpResponse DropNamespace(catalog::Catalog* c, const PathParams& params) {
  Status st = c->DropNamespace(NamespaceParam(params));
  return st.ok() ? NoContent() : StatusResponse(st);
}

HttpResponse UpdateProperties(catalog::Catalog* c, const HttpRequest& request,
                              const PathParams& params) {
  auto body = ParseBody(request);
  if (!body.ok()) return StatusResponse(body.status());
  auto updates = engine::GetOptStringMap(*body, "updates");
  if (!updates.ok()) return StatusResponse(updates.status());
  std::vector<std::string> removals;
  if (engine::FindField(*body, "removals") != nullptr) {
    auto r = engine::GetStringList(*body, "removals");
    if (!r.ok()) return StatusResponse(r.status());
    removals = *r;
  }
  auto change = c->UpdateNamespaceProperties(NamespaceParam(params), *updates, removals);
  if (!change.ok()) return StatusResponse(change.status());
  return JsonResponse(200, {{"updated", change->updated},
                            {"removed", change->removed},
                            {"missing", change->missing}});
}

}  // namespace

void RestApi::AddNamespaceRoutes() {
  catalog::Catalog* c = catalog_;
  const std::string base = "/v1/{prefix}/namespaces";
  router_.Add("GET", base, [c](const HttpRequest& r, const PathParams&) {
    return ListNamespaces(c, r);
  });
  router_.Add("POST", base, Idempotent(c, [c](const HttpRequest& r, const PathParams&) {
    return CreateNamespace(c, r);
  }));
  router_.Add("GET", base + "/{namespace}", [c](const HttpRequest&, const PathParams& p) {
    return LoadNamespace(c, p);
  });
  router_.Add("HEAD", base + "/{namespace}", [c](const HttpRequest&, const PathParams& p) {
    return NamespaceExists(c, p);
  });
  router_.Add("DELETE", base + "/{namespace}",
              Idempotent(c, [c](const HttpRequest&, const PathParams& p) {
                return DropNamespace(c, p);
              }));
  router_.Add("POST", base + "/{namespace}/properties",
              Idempotent(c, [c](const HttpRequest& r, const PathParams& p) {
                return UpdateProperties(c, r, p);
              }));
}

}  // namespace cairn::rest
