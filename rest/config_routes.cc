// /v1/config, /health and /ready.
#include "rest/error_mapping.h"
#include "rest/idempotency.h"
#include "rest/rest_api.h"

namespace cairn::rest {

using engine::Json;

void RestApi::AddConfigRoutes() {
  router_.Add("GET", "/v1/config", [this](const HttpRequest&, const PathParams&) {
    Json endpoints = Endpoints();
    // How clients reach the store, and whether it is a put-if-absent store (for operators).
    Json defaults = catalog_->ClientConfig();
    defaults["cairn.storage.put-if-absent"] = catalog_->StorePutIfAbsent() ? "true" : "false";
    // Keys live in the metastore's database, so every replica honours them.
    return JsonResponse(200, {{"defaults", std::move(defaults)},
                              {"overrides", Json::object()},
                              {"endpoints", std::move(endpoints)},
                              {"idempotency-key-lifetime",
                               IsoDuration(catalog_->idempotency_lifetime_ms())}});
  });
  router_.Add("GET", "/health", [](const HttpRequest&, const PathParams&) {
    return JsonResponse(200, {{"status", "alive"}});
  }, /*advertise=*/false);
  router_.Add("GET", "/ready", [this](const HttpRequest&, const PathParams&) {
    engine::Status st = catalog_->Ready();
    if (!st.ok()) return ErrorResponse(503, "ServiceUnavailableException", st.message());
    return JsonResponse(200, {{"status", "ready"}});
  }, /*advertise=*/false);
}

}  // namespace cairn::rest
