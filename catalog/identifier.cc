#include "catalog/identifier.h"

namespace cairn::catalog {
namespace {

bool HasControlChar(const std::string& s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

}  // namespace

std::string JoinNamespace(const Namespace& ns) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) out += '.';
    out += ns[i];
  }
  return out;
}

Namespace SplitNamespace(const std::string& joined) {
  Namespace out;
  size_t start = 0;
  for (;;) {
    size_t dot = joined.find('.', start);
    out.push_back(joined.substr(start, dot - start));
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

std::string ToString(const TableIdentifier& id) {
  return id.ns.empty() ? id.name : JoinNamespace(id.ns) + "." + id.name;
}

engine::Status ValidateNamespace(const Namespace& ns) {
  if (ns.empty()) return engine::Status::InvalidArgument("namespace must not be empty");
  for (const std::string& level : ns) {
    if (level.empty()) {
      return engine::Status::InvalidArgument("namespace levels must not be empty");
    }
    if (level.find('.') != std::string::npos || level.find('/') != std::string::npos ||
        HasControlChar(level)) {
      return engine::Status::InvalidArgument(
          "invalid namespace level '" + level +
          "': it must not contain '.', '/' or control characters");
    }
  }
  return engine::Status::OK();
}

engine::Status ValidateName(const std::string& name, const char* what) {
  if (name.empty()) {
    return engine::Status::InvalidArgument(std::string(what) + " name must not be empty");
  }
  if (name.find('/') != std::string::npos || HasControlChar(name)) {
    return engine::Status::InvalidArgument("invalid " + std::string(what) + " name '" + name +
                                           "': it must not contain '/' or control characters");
  }
  return engine::Status::OK();
}

}  // namespace cairn::catalog
