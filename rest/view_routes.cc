// /v1/{prefix}/namespaces/{namespace}/views..., /views/rename, /register-view.
#include "rest/error_mapping.h"
#include "rest/idempotency.h"
#include "rest/rest_api.h"

namespace cairn::rest {
namespace {

using catalog::LoadedView;
using catalog::TableIdentifier;
using engine::Json;
using engine::Result;
using engine::Status;

TableIdentifier ViewParam(const PathParams& params) {
  return TableIdentifier{NamespaceParam(params), params.at("view")};
}

HttpResponse ViewResponse(const LoadedView& v) {
  return JsonResponse(200, {{"metadata-location", v.metadata_location},
                            {"metadata", v.metadata->ToJson()},
                            {"config", Json::object()}});
}

Result<catalog::CreateViewRequest> ParseCreateView(const Json& body) {
  catalog::CreateViewRequest r;
  ASSIGN_OR_RETURN(r.name, engine::GetString(body, "name"));
  RETURN_IF_ERROR(catalog::ValidateName(r.name, "view"));
  ASSIGN_OR_RETURN(const Json* schema, engine::GetObject(body, "schema"));
  ASSIGN_OR_RETURN(r.schema, engine::Schema::FromJson(*schema));
  ASSIGN_OR_RETURN(const Json* version, engine::GetObject(body, "view-version"));
  ASSIGN_OR_RETURN(r.version, engine::ViewVersion::FromJson(*version));
  ASSIGN_OR_RETURN(r.location, engine::GetOptString(body, "location"));
  ASSIGN_OR_RETURN(r.properties, engine::GetOptStringMap(body, "properties"));
  return r;
}

Result<catalog::ViewChange> ParseViewChange(const Json& body, const TableIdentifier& id) {
  catalog::ViewChange change;
  change.id = id;
  if (const Json* ident = engine::FindField(body, "identifier")) {
    ASSIGN_OR_RETURN(TableIdentifier given, IdentifierFromJson(*ident, "identifier"));
    if (!(given == id)) {
      return Status::InvalidArgument("identifier " + catalog::ToString(given) +
                                     " does not match the view in the path " +
                                     catalog::ToString(id));
    }
  }
  if (const Json* reqs = engine::FindField(body, "requirements")) {
    ASSIGN_OR_RETURN(change.requirements, engine::ParseViewRequirements(*reqs));
  }
  ASSIGN_OR_RETURN(const Json* updates, engine::GetArray(body, "updates"));
  ASSIGN_OR_RETURN(change.updates, engine::ParseViewUpdates(*updates));
  return change;
}

HttpResponse ListViews(catalog::Catalog* c, const HttpRequest& request,
                       const PathParams& params) {
  auto page = PageParams(request);
  if (!page.ok()) return StatusResponse(page.status());
  catalog::Namespace ns = NamespaceParam(params);
  auto listed = c->ListViews(ns, *page);
  return listed.ok() ? IdentifiersResponse(ns, *listed) : StatusResponse(listed.status());
}

HttpResponse CreateView(catalog::Catalog* c, const HttpRequest& request,
                        const PathParams& params) {
  auto body = ParseBody(request);
  if (!body.ok()) return StatusResponse(body.status());
  auto parsed = ParseCreateView(*body);
  if (!parsed.ok()) return StatusResponse(parsed.status());
  auto view = c->CreateView(NamespaceParam(params), *parsed, IdempotencyOf(request));
  return view.ok() ? ViewResponse(*view) : StatusResponse(view.status());
}

HttpResponse LoadView(catalog::Catalog* c, const PathParams& params) {
  auto view = c->LoadView(ViewParam(params));
  return view.ok() ? ViewResponse(*view) : StatusResponse(view.status());
}

HttpResponse ViewExists(catalog::Catalog* c, const PathParams& params) {
  auto view = c->LoadView(ViewParam(params));
  return view.ok() ? NoContent() : StatusResponse(view.status());
}

HttpResponse CommitView(catalog::Catalog* c, const HttpRequest& request,
                        const PathParams& params) {
  auto body = ParseBody(request);
  if (!body.ok()) return StatusResponse(body.status());
  auto change = ParseViewChange(*body, ViewParam(params));
  if (!change.ok()) return StatusResponse(change.status());
  auto view = c->CommitView(*change, IdempotencyOf(request));
  return view.ok() ? ViewResponse(*view) : StatusResponse(view.status());
}

HttpResponse DropView(catalog::Catalog* c, const PathParams& params) {
  Status st = c->DropView(ViewParam(params));
  return st.ok() ? NoContent() : StatusResponse(st);
}

HttpResponse RenameView(catalog::Catalog* c, const HttpRequest& request) {
  auto rename = ParseRename(request);
  if (!rename.ok()) return StatusResponse(rename.status());
  Status st = c->RenameView(rename->from, rename->to);
  return st.ok() ? NoContent() : StatusResponse(st);
}

HttpResponse RegisterView(catalog::Catalog* c, const HttpRequest& request,
                          const PathParams& params) {
  auto body = ParseBody(request);
  if (!body.ok()) return StatusResponse(body.status());
  auto name = engine::GetString(*body, "name");
  if (!name.ok()) return StatusResponse(name.status());
  auto location = engine::GetString(*body, "metadata-location");
  if (!location.ok()) return StatusResponse(location.status());
  auto view = c->RegisterView(TableIdentifier{NamespaceParam(params), *name}, *location,
                              IdempotencyOf(request));
  return view.ok() ? ViewResponse(*view) : StatusResponse(view.status());
}

}  // namespace

void RestApi::AddViewRoutes() {
  catalog::Catalog* c = catalog_;
  const std::string views = "/v1/{prefix}/namespaces/{namespace}/views";
  const std::string view = views + "/{view}";
  router_.Add("GET", views, [c](const HttpRequest& r, const PathParams& p) {
    return ListViews(c, r, p);
  });
  ReplayRenderer as_loaded = [c](const std::string& location) {
    auto view = c->LoadViewAt(location);
    return view.ok() ? ViewResponse(*view) : StatusResponse(view.status());
  };
  router_.Add("POST", views, Idempotent(c, [c](const HttpRequest& r, const PathParams& p) {
    return CreateView(c, r, p);
  }, as_loaded));
  router_.Add("GET", view, [c](const HttpRequest&, const PathParams& p) { return LoadView(c, p); });
  router_.Add("HEAD", view, [c](const HttpRequest&, const PathParams& p) {
    return ViewExists(c, p);
  });
  router_.Add("POST", view, Idempotent(c, [c](const HttpRequest& r, const PathParams& p) {
    return CommitView(c, r, p);
  }, as_loaded));
  router_.Add("DELETE", view, Idempotent(c, [c](const HttpRequest&, const PathParams& p) {
    return DropView(c, p);
  }));
  router_.Add("POST", "/v1/{prefix}/views/rename",
              Idempotent(c, [c](const HttpRequest& r, const PathParams&) {
                return RenameView(c, r);
              }));
  router_.Add("POST", "/v1/{prefix}/namespaces/{namespace}/register-view",
              Idempotent(c, [c](const HttpRequest& r, const PathParams& p) {
                return RegisterView(c, r, p);
              }, as_loaded));
}

}  // namespace cairn::rest
