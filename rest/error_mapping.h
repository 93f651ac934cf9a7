#pragma once

// The one mapping from Status to HTTP: status code and the spec's ErrorModel
// ({"error": {"message", "type", "code"}}). Every error response of cairn is made here.
//
//   InvalidArgument 400 IllegalArgumentException    NoSuchNamespace 404 NoSuchNamespaceException
//   NoSuchTable 404 NoSuchTableException         NoSuchView 404 NoSuchViewException
//   NotFound 404 NotFoundException               AlreadyExists 409 AlreadyExistsException
//   NamespaceNotEmpty 409 NamespaceNotEmptyException
//   CommitFailed 409 CommitFailedException       (definitely not applied)
//   CommitStateUnknown 500 CommitStateUnknownException (maybe applied: never 409/429/503)
//   PayloadTooLarge 413   Unprocessable 422   Unavailable 503   NotImplemented 501
//   IOError / Internal 500

#include <string>

#include "engine/status.h"
#include "rest/http.h"

namespace cairn::rest {

// REQUIRES: !status.ok().
HttpResponse StatusResponse(const engine::Status& status);

HttpResponse ErrorResponse(int code, const std::string& type, const std::string& message);

// The ErrorModel body alone.
std::string ErrorBody(int code, const std::string& type, const std::string& message);

}  // namespace cairn::rest
