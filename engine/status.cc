#include "engine/status.h"

namespace cairn::engine {

const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk: return "OK";
    case Status::Code::kInvalidArgument: return "InvalidArgument";
    case Status::Code::kNotFound: return "NotFound";
    case Status::Code::kNoSuchNamespace: return "NoSuchNamespace";
    case Status::Code::kNoSuchTable: return "NoSuchTable";
    case Status::Code::kNoSuchView: return "NoSuchView";
    case Status::Code::kAlreadyExists: return "AlreadyExists";
    case Status::Code::kNamespaceNotEmpty: return "NamespaceNotEmpty";
    case Status::Code::kCommitFailed: return "CommitFailed";
    case Status::Code::kCommitStateUnknown: return "CommitStateUnknown";
    case Status::Code::kUnprocessable: return "Unprocessable";
    case Status::Code::kPayloadTooLarge: return "PayloadTooLarge";
    case Status::Code::kUnavailable: return "Unavailable";
    case Status::Code::kIOError: return "IOError";
    case Status::Code::kInternal: return "Internal";
    case Status::Code::kNotImplemented: return "NotImplemented";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(code_)) + ": " + message_;
}

}  // namespace cairn::engine
