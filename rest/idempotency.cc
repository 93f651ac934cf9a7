#include "rest/idempotency.h"

#include <cctype>
#include <chrono>
#include <thread>

#include "rest/error_mapping.h"

namespace cairn::rest {
namespace {

// How long a replay waits for the request that holds its key, and how often it looks.
constexpr auto kWaitForOriginal = std::chrono::seconds(30);
constexpr auto kPollInterval = std::chrono::milliseconds(20);
// Recorded bodies larger than this are recorded as a replay marker when they have one.
constexpr size_t kMaxRecordedBody = 64 * 1024;

bool ValidKey(const std::string& key) {
  if (key.size() != 36) return false;
  for (size_t i = 0; i < key.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? key[i] != '-' : !std::isxdigit(static_cast<unsigned char>(key[i]))) return false;
  }
  return true;
}

HttpResponse Replay(const catalog::IdempotencyRecord& record, const ReplayRenderer& replay) {
  if (auto location = catalog::ParseReplayMarker(record.response)) {
    if (replay) return replay(*location);
  }
  HttpResponse res;
  res.status = record.status;
  res.body = record.response;
  return res;
}

// What to record for a final response: its body, or for a large pointer-moving response the
// marker of the metadata file it names.
std::string Recorded(const HttpResponse& res) {
  if (res.body.size() <= kMaxRecordedBody) return res.body;
  auto json = engine::ParseJson(res.body);
  if (json.ok()) {
    if (auto location = engine::GetString(*json, "metadata-location"); location.ok()) {
      return catalog::ReplayMarker(*location);
    }
  }
  return res.body;
}

}  // namespace

std::string IdempotencyKey(const HttpRequest& request) {
  return request.Header("Idempotency-Key");
}

std::string IsoDuration(int64_t millis) {
  int64_t seconds = millis / 1000;
  if (seconds % 3600 == 0) return "PT" + std::to_string(seconds / 3600) + "H";
  if (seconds % 60 == 0) return "PT" + std::to_string(seconds / 60) + "M";
  return "PT" + std::to_string(seconds) + "S";
}

RouteHandler Idempotent(catalog::Catalog* catalog, RouteHandler handler, ReplayRenderer replay) {
  return [catalog, handler = std::move(handler), replay = std::move(replay)](
             const HttpRequest& request, const PathParams& params) -> HttpResponse {
    const std::string key = IdempotencyKey(request);
    if (key.empty()) return handler(request, params);
    if (!ValidKey(key)) {
      return StatusResponse(engine::Status::InvalidArgument(
          "Idempotency-Key must be a UUID in its 36-character text form, got '" + key + "'"));
    }
    const std::string fingerprint = request.method + " " + request.raw_path;
    auto deadline = std::chrono::steady_clock::now() + kWaitForOriginal;
    for (;;) {
      auto claim = catalog->ClaimIdempotencyKey(key, fingerprint);
      if (!claim.ok()) return StatusResponse(claim.status());
      if (!claim->has_value()) break;  // ours: run the request
      const catalog::IdempotencyRecord& record = **claim;
      if (record.request != fingerprint) {
        return StatusResponse(engine::Status::Unprocessable(
            "Idempotency-Key " + key + " was already used for another request (" +
            record.request + ")"));
      }
      if (record.done) return Replay(record, replay);
      if (std::chrono::steady_clock::now() >= deadline) {
        return StatusResponse(engine::Status::CommitStateUnknown(
            "the request first sent with Idempotency-Key " + key +
            " is still running; retry later with the same key"));
      }
      std::this_thread::sleep_for(kPollInterval);
    }
    HttpResponse res = handler(request, params);
    if (res.status >= 500) {
      catalog->ReleaseIdempotencyKey(key);  // not final: a retry runs again
    } else {
      catalog->FinishIdempotencyKey(key, res.status, Recorded(res));
    }
    return res;
  };
}

}  // namespace cairn::rest
