#include "catalog/metastore.h"

namespace cairn::catalog {
namespace {

const char* KindName(EntityKind kind) { return kind == EntityKind::kTable ? "Table" : "View"; }

}  // namespace

const char* JdbcTypeName(EntityKind kind) {
  return kind == EntityKind::kTable ? "TABLE" : "VIEW";
}

EntityKind KindFromJdbcType(const std::string& type) {
  return type == "VIEW" ? EntityKind::kView : EntityKind::kTable;
}

Status KeyLost(const std::string& key) {
  return Status::CommitFailed("Idempotency-Key " + key +
                              " was taken over by a retry: this attempt was not applied");
}

Status NoSuchNamespaceError(const Namespace& ns) {
  return Status::NoSuchNamespace("Namespace does not exist: " + JoinNamespace(ns));
}

Status NoSuchEntry(const TableIdentifier& id, EntityKind kind) {
  return kind == EntityKind::kTable ? Status::NoSuchTable("Table does not exist: " + ToString(id))
                                    : Status::NoSuchView("View does not exist: " + ToString(id));
}

Status EntryExists(const TableIdentifier& id, EntityKind requested, EntityKind existing) {
  if (requested == existing) {
    return Status::AlreadyExists(std::string(KindName(existing)) + " already exists: " +
                                 ToString(id));
  }
  return Status::AlreadyExists(std::string(KindName(existing)) +
                               " with same name already exists: " + ToString(id));
}

Status RenameTargetExists(const TableIdentifier& from, const TableIdentifier& to,
                          EntityKind existing) {
  return Status::AlreadyExists("Cannot rename " + ToString(from) + " to " + ToString(to) + ". " +
                               KindName(existing) + " already exists");
}

}  // namespace cairn::catalog
