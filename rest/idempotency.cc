#include "rest/idempotency.h"

#include <cctype>
#include <chrono>
#include <thread>

#include "rest/error_mapping.h"

namespace cairn::rest {
namespace {

// How long a replay waits for the request that holds its key (longer than the catalog's
// stale time, after which it takes the key over), and how often it looks, at most.
constexpr auto kWaitForOriginal = std::chrono::seconds(15);
constexpr auto kMaxPollInterval = std::chrono::milliseconds(250);
// The internal header that carries a claim's token from the wrapper to its handler.
constexpr const char* kOwnerHeader = "X-Cairn-Idempotency-Owner";
// Attempts to record or release a key before leaving it to the stale takeover.
constexpr int kBookkeepingAttempts = 3;
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

catalog::IdempotencyToken IdempotencyOf(const HttpRequest& request) {
  std::string owner = request.Header(kOwnerHeader);
  if (owner.empty()) return {};
  return catalog::IdempotencyToken{request.Header("Idempotency-Key"), owner};
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
    HttpRequest own = request;
    own.headers.erase(kOwnerHeader);  // only this wrapper sets it
    const std::string key = own.Header("Idempotency-Key");
    if (key.empty()) return handler(own, params);
    if (!ValidKey(key)) {
      return StatusResponse(engine::Status::InvalidArgument(
          "Idempotency-Key must be a UUID in its 36-character text form, got '" + key + "'"));
    }
    const std::string fingerprint = request.method + " " + request.raw_path;
    auto deadline = std::chrono::steady_clock::now() + kWaitForOriginal;
    auto poll = std::chrono::milliseconds(10);
    catalog::IdempotencyToken token;
    for (;;) {
      auto claim = catalog->ClaimIdempotencyKey(key, fingerprint);
      if (!claim.ok()) return StatusResponse(claim.status());
      if (!claim->existing) {  // ours: run the request
        token = claim->token;
        break;
      }
      const catalog::IdempotencyRecord& record = *claim->existing;
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
      std::this_thread::sleep_for(poll);
      poll = std::min(poll * 2, kMaxPollInterval);
    }
    own.headers[kOwnerHeader] = token.owner;
    HttpResponse res = handler(own, params);
    // A 5xx is not final: release the key so a retry runs again. Should the bookkeeping keep
    // failing, a retry takes the key over once it is stale.
    for (int attempt = 0; attempt < kBookkeepingAttempts; ++attempt) {
      engine::Status st = res.status >= 500
                              ? catalog->ReleaseIdempotencyKey(token)
                              : catalog->FinishIdempotencyKey(token, res.status, Recorded(res));
      if (st.ok()) break;
    }
    return res;
  };
}

}  // namespace cairn::rest
