#pragma once

// Idempotency-Key (REST spec 1.11) for mutating routes.
//
// A request carrying the header claims its key before it runs. A replay of a finished
// request gets the recorded response (a pointer move is replayed by rendering the metadata
// file it moved to; the body may show a newer catalog state, as the spec allows); a replay
// that arrives while the first request still runs waits for it. Final answers (2xx and 4xx)
// are recorded; a 5xx is not, so a retry runs again. Commits record their answer in the same
// SQL transaction as their pointer swaps (see Catalog), so a replay on any replica is exact.

#include <functional>
#include <string>

#include "catalog/catalog.h"
#include "rest/router.h"

namespace cairn::rest {

// Renders the response of a pointer-moving request from the metadata file it moved to.
using ReplayRenderer = std::function<HttpResponse(const std::string& metadata_location)>;

// Wraps `handler` with Idempotency-Key semantics. `replay` renders recorded pointer moves;
// leave it empty for routes that never record one.
RouteHandler Idempotent(catalog::Catalog* catalog, RouteHandler handler,
                        ReplayRenderer replay = nullptr);

// The Idempotency-Key `request` holds for its handler (empty when it carries none): the key
// and the token it was claimed with, handed on by Idempotent().
catalog::IdempotencyToken IdempotencyOf(const HttpRequest& request);

// "PT30M" for 30 minutes: the ISO-8601 duration advertised in /v1/config.
std::string IsoDuration(int64_t millis);

}  // namespace cairn::rest
