#include "rest/error_mapping.h"

#include <nlohmann/json.hpp>

namespace cairn::rest {
namespace {

using Code = engine::Status::Code;

struct Mapping {
  int http;
  const char* type;
};

Mapping MapCode(Code code) {
  switch (code) {
    case Code::kOk: return {200, ""};
    case Code::kInvalidArgument: return {400, "IllegalArgumentException"};
    case Code::kNotFound: return {404, "NotFoundException"};
    case Code::kNoSuchNamespace: return {404, "NoSuchNamespaceException"};
    case Code::kNoSuchTable: return {404, "NoSuchTableException"};
    case Code::kNoSuchView: return {404, "NoSuchViewException"};
    case Code::kAlreadyExists: return {409, "AlreadyExistsException"};
    case Code::kNamespaceNotEmpty: return {409, "NamespaceNotEmptyException"};
    case Code::kCommitFailed: return {409, "CommitFailedException"};
    case Code::kCommitStateUnknown: return {500, "CommitStateUnknownException"};
    case Code::kUnprocessable: return {422, "UnprocessableEntityException"};
    case Code::kPayloadTooLarge: return {413, "PayloadTooLargeException"};
    case Code::kUnavailable: return {503, "ServiceUnavailableException"};
    case Code::kIOError: return {500, "IOException"};
    case Code::kInternal: return {500, "InternalServerError"};
    case Code::kNotImplemented: return {501, "UnsupportedOperationException"};
  }
  return {500, "InternalServerError"};
}

}  // namespace

std::string ErrorBody(int code, const std::string& type, const std::string& message) {
  nlohmann::json body = {{"error", {{"message", message}, {"type", type}, {"code", code}}}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

HttpResponse ErrorResponse(int code, const std::string& type, const std::string& message) {
  HttpResponse res;
  res.status = code;
  res.body = ErrorBody(code, type, message);
  return res;
}

HttpResponse StatusResponse(const engine::Status& status) {
  Mapping m = MapCode(status.code());
  return ErrorResponse(m.http, m.type, status.message());
}

}  // namespace cairn::rest
