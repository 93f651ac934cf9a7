// /v1/{prefix}/namespaces/{namespace}/tables..., /tables/rename, /transactions/commit.
#include <cstdio>
#include <strings.h>

#include "rest/error_mapping.h"
#include "rest/idempotency.h"
#include "rest/rest_api.h"

namespace cairn::rest {
namespace {

using catalog::LoadedTable;
using catalog::TableIdentifier;
using engine::Json;
using engine::Result;
using engine::Status;

TableIdentifier TableParam(const PathParams& params) {
  return TableIdentifier{NamespaceParam(params), params.at("table")};
}

bool QueryFlag(const HttpRequest& request, const std::string& name) {
  return strcasecmp(request.Query(name, "false").c_str(), "true") == 0;
}

// A strong ETag for one representation of one metadata file.
std::string ETag(const std::string& location, bool refs_only) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char ch : location) h = (h ^ ch) * 1099511628211ULL;
  char buf[40];
  std::snprintf(buf, sizeof(buf), "\"%016llx-%s\"", static_cast<unsigned long long>(h),
                refs_only ? "refs" : "all");
  return buf;
}

bool ETagMatches(const std::string& if_none_match, const std::string& etag) {
  if (if_none_match.empty()) return false;
  size_t start = 0;
  while (start < if_none_match.size()) {
    size_t comma = if_none_match.find(',', start);
    if (comma == std::string::npos) comma = if_none_match.size();
    std::string tag = if_none_match.substr(start, comma - start);
    tag.erase(0, tag.find_first_not_of(" \t"));
    tag.erase(tag.find_last_not_of(" \t") + 1);
    if (tag.rfind("W/", 0) == 0) tag = tag.substr(2);
    if (tag == "*" || tag == etag) return true;
    start = comma + 1;
  }
  return false;
}

// LoadTableResult / CommitTableResponse, built around the cached metadata text.
// `config` (the catalog's client config) is sent as "config" unless null.
HttpResponse TableResponse(const LoadedTable& t, bool refs_only,
                           const engine::Properties* config) {
  HttpResponse res;
  const std::string& metadata = refs_only ? t.metadata->RefsJson() : t.metadata->json;
  std::string body;
  body.reserve(metadata.size() + t.metadata_location.size() + 64);
  body += "{";
  if (!t.metadata_location.empty()) {
    body += "\"metadata-location\":" + Json(t.metadata_location).dump() + ",";
  }
  body += "\"metadata\":";
  body += metadata;
  if (config != nullptr) body += ",\"config\":" + Json(*config).dump();
  body += "}";
  res.body = std::move(body);
  if (!t.metadata_location.empty()) res.headers["ETag"] = ETag(t.metadata_location, refs_only);
  return res;
}

Result<catalog::CreateTableRequest> ParseCreateTable(const Json& body) {
  catalog::CreateTableRequest r;
  ASSIGN_OR_RETURN(r.name, engine::GetString(body, "name"));
  RETURN_IF_ERROR(catalog::ValidateName(r.name, "table"));
  ASSIGN_OR_RETURN(const Json* schema, engine::GetObject(body, "schema"));
  ASSIGN_OR_RETURN(r.schema, engine::Schema::FromJson(*schema));
  if (const Json* spec = engine::FindField(body, "partition-spec")) {
    ASSIGN_OR_RETURN(r.spec, engine::PartitionSpec::FromJson(*spec));
  }
  if (const Json* order = engine::FindField(body, "write-order")) {
    Json copy = *order;
    if (copy.is_object() && !copy.contains("order-id")) copy["order-id"] = 0;
    ASSIGN_OR_RETURN(r.sort_order, engine::SortOrder::FromJson(copy));
  }
  ASSIGN_OR_RETURN(r.location, engine::GetOptString(body, "location"));
  ASSIGN_OR_RETURN(r.properties, engine::GetOptStringMap(body, "properties"));
  ASSIGN_OR_RETURN(std::optional<bool> stage, engine::GetOptBool(body, "stage-create"));
  r.stage_create = stage.value_or(false);
  return r;
}

Result<catalog::TableChange> ParseChange(const Json& body, std::optional<TableIdentifier> id) {
  catalog::TableChange change;
  if (const Json* ident = engine::FindField(body, "identifier")) {
    ASSIGN_OR_RETURN(TableIdentifier given, IdentifierFromJson(*ident, "identifier"));
    if (id && !(given == *id)) {
      return Status::InvalidArgument("identifier " + catalog::ToString(given) +
                                     " does not match the table in the path " +
                                     catalog::ToString(*id));
    }
    id = given;
  }
  if (!id) return Status::InvalidArgument("missing required field 'identifier'");
  change.id = *id;
  ASSIGN_OR_RETURN(const Json* reqs, engine::GetArray(body, "requirements"));
  ASSIGN_OR_RETURN(change.requirements, engine::ParseTableRequirements(*reqs));
  ASSIGN_OR_RETURN(const Json* updates, engine::GetArray(body, "updates"));
  ASSIGN_OR_RETURN(change.updates, engine::ParseTableUpdates(*updates));
  return change;
}

HttpResponse ListTables(catalog::Catalog* c, const HttpRequest& request,
                        const PathParams& params) {
  auto page = PageParams(request);
  if (!page.ok()) return StatusResponse(page.status());
  catalog::Namespace ns = NamespaceParam(params);
  auto listed = c->ListTables(ns, *page);
  return listed.ok() ? IdentifiersResponse(ns, *listed) : StatusResponse(listed.status());
}

HttpResponse CreateTable(catalog::Catalog* c, const HttpRequest& request,
                         const PathParams& params) {
  auto body = ParseBody(request);
  if (!body.ok()) return StatusResponse(body.status());
  auto parsed = ParseCreateTable(*body);
  if (!parsed.ok()) return StatusResponse(parsed.status());
  auto table = c->CreateTable(NamespaceParam(params), *parsed, IdempotencyOf(request));
  if (!table.ok()) return StatusResponse(table.status());
  return TableResponse(*table, false, &c->ClientConfig());
}

HttpResponse LoadTable(catalog::Catalog* c, const HttpRequest& request,
                       const PathParams& params) {
  std::string mode = request.Query("snapshots", "all");
  if (mode != "all" && mode != "refs") {
    return StatusResponse(Status::InvalidArgument("snapshots must be 'all' or 'refs', got '" +
                                                  mode + "'"));
  }
  bool refs_only = mode == "refs";
  // A conditional load is answered from the pointer alone: no document is read.
  auto location = c->CurrentMetadataLocation(TableParam(params));
  if (!location.ok()) return StatusResponse(location.status());
  std::string etag = ETag(*location, refs_only);
  if (ETagMatches(request.Header("If-None-Match"), etag)) {
    HttpResponse res;
    res.status = 304;
    res.headers["ETag"] = etag;
    return res;
  }
  auto table = c->LoadTableAt(*location);
  if (!table.ok()) return StatusResponse(table.status());
  return TableResponse(*table, refs_only, &c->ClientConfig());
}

HttpResponse TableExists(catalog::Catalog* c, const PathParams& params) {
  auto table = c->LoadTable(TableParam(params));
  return table.ok() ? NoContent() : StatusResponse(table.status());
}

HttpResponse CommitTable(catalog::Catalog* c, const HttpRequest& request,
                         const PathParams& params) {
  auto body = ParseBody(request);
  if (!body.ok()) return StatusResponse(body.status());
  auto change = ParseChange(*body, TableParam(params));
  if (!change.ok()) return StatusResponse(change.status());
  auto table = c->CommitTable(*change, IdempotencyOf(request));
  if (!table.ok()) return StatusResponse(table.status());
  return TableResponse(*table, false, nullptr);
}

HttpResponse DropTable(catalog::Catalog* c, const HttpRequest& request,
                       const PathParams& params) {
  Status st = c->DropTable(TableParam(params), QueryFlag(request, "purgeRequested"));
  return st.ok() ? NoContent() : StatusResponse(st);
}

HttpResponse RegisterTable(catalog::Catalog* c, const HttpRequest& request,
                           const PathParams& params) {
  auto body = ParseBody(request);
  if (!body.ok()) return StatusResponse(body.status());
  auto name = engine::GetString(*body, "name");
  if (!name.ok()) return StatusResponse(name.status());
  auto location = engine::GetString(*body, "metadata-location");
  if (!location.ok()) return StatusResponse(location.status());
  auto overwrite = engine::GetOptBool(*body, "overwrite");
  if (!overwrite.ok()) return StatusResponse(overwrite.status());
  auto table = c->RegisterTable(TableIdentifier{NamespaceParam(params), *name}, *location,
                                overwrite->value_or(false), IdempotencyOf(request));
  if (!table.ok()) return StatusResponse(table.status());
  return TableResponse(*table, false, &c->ClientConfig());
}

HttpResponse RenameTable(catalog::Catalog* c, const HttpRequest& request) {
  auto rename = ParseRename(request);
  if (!rename.ok()) return StatusResponse(rename.status());
  Status st = c->RenameTable(rename->from, rename->to);
  return st.ok() ? NoContent() : StatusResponse(st);
}

HttpResponse ReportMetrics(catalog::Catalog* c, const HttpRequest& request,
                           const PathParams& params) {
  auto body = ParseBody(request);
  if (!body.ok()) return StatusResponse(body.status());
  auto type = engine::GetString(*body, "report-type");
  if (!type.ok()) return StatusResponse(type.status());
  auto table = c->LoadTable(TableParam(params));
  if (!table.ok()) return StatusResponse(table.status());
  return NoContent();
}

HttpResponse CommitTransaction(catalog::Catalog* c, const HttpRequest& request) {
  auto body = ParseBody(request);
  if (!body.ok()) return StatusResponse(body.status());
  auto list = engine::GetArray(*body, "table-changes");
  if (!list.ok()) return StatusResponse(list.status());
  std::vector<catalog::TableChange> changes;
  for (const Json& entry : **list) {
    if (!entry.is_object()) {
      return StatusResponse(Status::InvalidArgument("each table change must be an object"));
    }
    auto change = ParseChange(entry, std::nullopt);
    if (!change.ok()) return StatusResponse(change.status());
    changes.push_back(std::move(change).value());
  }
  Status st = c->CommitTransaction(changes, IdempotencyOf(request));
  return st.ok() ? NoContent() : StatusResponse(st);
}

}  // namespace

void RestApi::AddTableRoutes() {
  catalog::Catalog* c = catalog_;
  const std::string tables = "/v1/{prefix}/namespaces/{namespace}/tables";
  const std::string table = tables + "/{table}";
  router_.Add("GET", tables, [c](const HttpRequest& r, const PathParams& p) {
    return ListTables(c, r, p);
  });
  // Pointer-moving routes replay as the table at the metadata file they moved to.
  auto as_loaded = [c](bool with_config) -> ReplayRenderer {
    return [c, with_config](const std::string& location) {
      auto table = c->LoadTableAt(location);
      if (!table.ok()) return StatusResponse(table.status());
      return TableResponse(*table, false, with_config ? &c->ClientConfig() : nullptr);
    };
  };
  router_.Add("POST", tables, Idempotent(c, [c](const HttpRequest& r, const PathParams& p) {
    return CreateTable(c, r, p);
  }, as_loaded(true)));
  router_.Add("GET", table, [c](const HttpRequest& r, const PathParams& p) {
    return LoadTable(c, r, p);
  });
  router_.Add("HEAD", table, [c](const HttpRequest&, const PathParams& p) {
    return TableExists(c, p);
  });
  router_.Add("POST", table, Idempotent(c, [c](const HttpRequest& r, const PathParams& p) {
    return CommitTable(c, r, p);
  }, as_loaded(false)));
  router_.Add("DELETE", table, Idempotent(c, [c](const HttpRequest& r, const PathParams& p) {
    return DropTable(c, r, p);
  }));
  router_.Add("POST", "/v1/{prefix}/namespaces/{namespace}/register",
              Idempotent(c, [c](const HttpRequest& r, const PathParams& p) {
                return RegisterTable(c, r, p);
              }, as_loaded(true)));
  router_.Add("POST", "/v1/{prefix}/tables/rename",
              Idempotent(c, [c](const HttpRequest& r, const PathParams&) {
                return RenameTable(c, r);
              }));
  router_.Add("POST", table + "/metrics", [c](const HttpRequest& r, const PathParams& p) {
    return ReportMetrics(c, r, p);
  });
  router_.Add("POST", "/v1/{prefix}/transactions/commit",
              Idempotent(c, [c](const HttpRequest& r, const PathParams&) {
                return CommitTransaction(c, r);
              }));
}

}  // namespace cairn::rest
