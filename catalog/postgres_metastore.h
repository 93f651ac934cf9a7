#pragma once

// PostgresMetastore: the production Metastore, on PostgreSQL through libpqxx, shared by any
// number of cairn replicas.
//
// Same layout as SqliteMetastore (Iceberg's JDBC catalog tables + cairn_version), created by
// migrations/postgres/ under an advisory lock so replicas starting together apply each
// migration once. The pointer swap is one UPDATE with the expected location and version in
// its WHERE clause, safe under READ COMMITTED. Connections never reconnect inside a
// transaction, and a COMMIT whose answer was lost is reported as CommitStateUnknown, never
// retried.
//
// Thread-safe: connections are pooled, one per concurrent caller.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "catalog/metastore.h"

namespace cairn::catalog {

class PostgresMetastore final : public Metastore {
 public:
  struct Options {
    std::string url;                     // postgresql://user@host:port/db
    std::string catalog_name = "cairn";  // the catalog_name column
    size_t max_idle_connections = 32;
  };

  // Connects and applies pending migrations. Unavailable if the server cannot be reached;
  // Internal if the schema is newer than this binary knows.
  static Result<std::unique_ptr<PostgresMetastore>> Open(const Options& options);
  ~PostgresMetastore() override;

  Status CreateNamespace(const Namespace& ns, const Properties& properties) override;
  Result<Properties> LoadNamespace(const Namespace& ns) override;
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  Status UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                   const std::vector<std::string>& removals) override;
  Status DropNamespace(const Namespace& ns) override;
  Result<Pointer> Load(const TableIdentifier& id, EntityKind kind) override;
  Result<std::vector<std::string>> ListNames(const Namespace& ns, EntityKind kind) override;
  Status Commit(const std::vector<PointerSwap>& swaps,
                const IdempotencyFinish* finish = nullptr) override;
  Result<std::optional<IdempotencyRecord>> ClaimIdempotencyKey(
      const std::string& key, const std::string& request, const std::string& owner,
      int64_t now_ms, int64_t expires_at_ms, int64_t stale_before_ms) override;
  Status FinishIdempotencyKey(const IdempotencyFinish& finish) override;
  Status ReleaseIdempotencyKey(const std::string& key, const std::string& owner) override;
  Status Drop(const TableIdentifier& id, EntityKind kind) override;
  Status Rename(const TableIdentifier& from, const TableIdentifier& to,
                EntityKind kind) override;
  Status Ping() override;

 private:
  class Lease;
  struct Connection;  // a libpqxx connection (kept out of this header)
  explicit PostgresMetastore(Options options);

  Result<Lease> Acquire();
  void Release(std::unique_ptr<Connection> conn);
  Status Migrate();
  // Runs `body(txn)` in one read-committed transaction on a pooled connection. Errors thrown
  // by libpqxx become Status; a lost COMMIT becomes `lost_commit`.
  template <typename Body>
  Status Transact(Body body, Status::Code lost_commit = Status::Code::kIOError);
  template <typename Body, typename Work>
  Status RunTransaction(Work& tx, Lease& conn, Body& body, Status::Code lost_commit);
  // Runs `body(txn)` outside a transaction (autocommit: one round trip per statement) for a
  // read of one statement. A connection found dead is replaced and the read run again.
  template <typename Body>
  Status Read(Body body);

  Options options_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Connection>> idle_;
};

}  // namespace cairn::catalog
