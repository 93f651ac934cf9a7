#pragma once

// Metastore: where the catalog keeps namespaces and each table's metadata pointer.
//
// The pointer of a table (or view) is the location of its current metadata file plus a
// version that grows by one on every swap (against ABA after a drop and re-create or a
// register with overwrite). Commits move pointers with a compare-and-swap.
//
// Implementations: SqliteMetastore (the embedded default), MemoryMetastore (the reference
// the contract tests hold the others to).
//
// Thread-safety: every implementation is safe for concurrent use.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/identifier.h"
#include "engine/json_util.h"
#include "engine/status.h"

namespace cairn::catalog {

using engine::Properties;
using engine::Result;
using engine::Status;

struct Pointer {
  std::string metadata_location;
  int64_t version = 0;
};

// One pointer move of a commit.
struct PointerSwap {
  TableIdentifier id;
  EntityKind kind = EntityKind::kTable;
  // The pointer the change was built on; nullopt creates the entry (it must not exist).
  std::optional<Pointer> expected;
  std::string new_location;
};

// What an Idempotency-Key has recorded.
struct IdempotencyRecord {
  std::string request;  // "<METHOD> <path>" the key was first used with
  bool done = false;    // false: its request is still running (or died before finishing)
  int status = 0;       // when done: the response to replay
  std::string response;
  int64_t created_at_ms = 0;
};

// A response to record under a key in the same transaction as a commit's swaps. `owner` is
// the token the key was claimed with: a request that no longer holds its key records nothing.
struct IdempotencyFinish {
  std::string key;
  std::string owner;
  int status = 200;
  std::string response;
};

// The iceberg_type column of the JDBC layout: "TABLE" or "VIEW" (NULL, from old JDBC
// catalogs, reads as "TABLE").
const char* JdbcTypeName(EntityKind kind);
EntityKind KindFromJdbcType(const std::string& type);

// A commit whose Idempotency-Key a retry took over: it was not applied.
Status KeyLost(const std::string& key);

// The errors every Metastore reports, worded as Iceberg's Java catalogs word them (clients and
// Apache's compatibility kit check the words).
Status NoSuchNamespaceError(const Namespace& ns);
Status NoSuchEntry(const TableIdentifier& id, EntityKind kind);
// A create of `requested` found an entry of kind `existing` under that name.
Status EntryExists(const TableIdentifier& id, EntityKind requested, EntityKind existing);
// A rename found an entry of kind `existing` at its target.
Status RenameTargetExists(const TableIdentifier& from, const TableIdentifier& to,
                          EntityKind existing);

class Metastore {
 public:
  virtual ~Metastore() = default;

  // --- Namespaces. Levels are validated by the caller.

  // AlreadyExists if `ns` exists.
  virtual Status CreateNamespace(const Namespace& ns, const Properties& properties) = 0;
  // The namespace's properties; NoSuchNamespace if absent.
  virtual Result<Properties> LoadNamespace(const Namespace& ns) = 0;
  // Direct children of `parent` (all top-level namespaces for an empty parent), sorted.
  // NoSuchNamespace if a non-empty parent does not exist.
  virtual Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) = 0;
  // Sets `updates` and removes `removals`; NoSuchNamespace if absent.
  virtual Status UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                           const std::vector<std::string>& removals) = 0;
  // NoSuchNamespace if absent; NamespaceNotEmpty if it holds tables, views or namespaces.
  virtual Status DropNamespace(const Namespace& ns) = 0;

  // --- Tables and views. A table and a view never share a name.

  // The current pointer. NoSuchTable / NoSuchView when there is no entry of that kind.
  virtual Result<Pointer> Load(const TableIdentifier& id, EntityKind kind) = 0;
  // Names of the entries of `kind` in `ns`, sorted. NoSuchNamespace if `ns` is absent.
  virtual Result<std::vector<std::string>> ListNames(const Namespace& ns, EntityKind kind) = 0;
  // Applies every swap in one transaction, or none of them. With `finish`, the pending key it
  // names is marked done with its response in that same transaction; if `finish.owner` no
  // longer holds the key (a retry took it over), nothing is applied: CommitFailed.
  // Errors:
  // - CommitFailed: some entry's pointer is no longer `expected` (or it is gone);
  // - AlreadyExists: a create found an entry (table or view) of that name;
  // - NoSuchNamespace: a create's namespace does not exist;
  // - Unavailable: the store could not start the transaction (nothing applied);
  // - CommitStateUnknown: the outcome is unknown (the caller must reconcile).
  virtual Status Commit(const std::vector<PointerSwap>& swaps,
                        const IdempotencyFinish* finish = nullptr) = 0;
  // Removes the entry. NoSuchTable / NoSuchView if absent.
  virtual Status Drop(const TableIdentifier& id, EntityKind kind) = 0;
  // Renames an entry, keeping its pointer. NoSuchTable / NoSuchView if `from` is absent,
  // NoSuchNamespace if the target namespace is, AlreadyExists if `to` is taken.
  virtual Status Rename(const TableIdentifier& from, const TableIdentifier& to,
                        EntityKind kind) = 0;

  // --- Idempotency keys (all replicas see the same records).

  // Claims `key` for `request` as `owner` until `expires_at_ms`. Returns nullopt when `owner`
  // now holds the key (run the request), else the live record: done (replay it) or pending
  // (another request runs it). A pending record claimed before `stale_before_ms` belongs to a
  // request that looks dead: `owner` takes it over (nullopt). Expired records go first.
  virtual Result<std::optional<IdempotencyRecord>> ClaimIdempotencyKey(
      const std::string& key, const std::string& request, const std::string& owner,
      int64_t now_ms, int64_t expires_at_ms, int64_t stale_before_ms) = 0;
  // Marks the key done with its response if `finish.owner` still holds it pending.
  virtual Status FinishIdempotencyKey(const IdempotencyFinish& finish) = 0;
  // Forgets the key if `owner` still holds it pending (its request ended without a final
  // answer); done keys stay.
  virtual Status ReleaseIdempotencyKey(const std::string& key, const std::string& owner) = 0;

  // OK if the store answers and its schema is current (for /ready).
  virtual Status Ping() = 0;
};

}  // namespace cairn::catalog
