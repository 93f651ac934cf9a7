#pragma once

// Namespace and TableIdentifier: how the catalog names things.

#include <string>
#include <vector>

#include "engine/status.h"

namespace cairn::catalog {

// A namespace is its list of levels, outermost first: {"sales", "eu"}.
using Namespace = std::vector<std::string>;

// A table's or view's name within a namespace.
struct TableIdentifier {
  Namespace ns;
  std::string name;

  bool operator==(const TableIdentifier&) const = default;
  bool operator<(const TableIdentifier& o) const {
    return ns != o.ns ? ns < o.ns : name < o.name;
  }
};

// What a metastore row holds: a table or a view.
enum class EntityKind { kTable, kView };

// "a.b" for {"a", "b"}; the form Iceberg's JDBC catalog stores.
std::string JoinNamespace(const Namespace& ns);
// The inverse of JoinNamespace.
Namespace SplitNamespace(const std::string& joined);
// "a.b.t": for messages.
std::string ToString(const TableIdentifier& id);

// Checks a namespace given by a client: at least one level, no empty level, no '.', '/' or
// control characters in a level (levels become directory names and are stored dot-joined).
engine::Status ValidateNamespace(const Namespace& ns);
// Checks a table or view name: not empty, no '/' and no control characters.
engine::Status ValidateName(const std::string& name, const char* what);

}  // namespace cairn::catalog
