#pragma once

// SqliteMetastore: the embedded default Metastore, one SQLite file.
//
// Layout: Iceberg's JDBC catalog tables (iceberg_tables, iceberg_namespace_properties) plus
// cairn_version, created by the migrations of migrations/sqlite/. Connections run in WAL mode
// with synchronous=FULL and a busy timeout; every write runs in BEGIN IMMEDIATE. Within one
// process writers take turns on a mutex, so SQLite's busy-wait only arbitrates between
// processes sharing the file. Commits are group-committed: those that arrive while one
// transaction syncs run together in the next, each in its own savepoint, so one WAL sync
// serves many and each still succeeds or fails on its own. A namespace exists while it has an "exists" row in
// iceberg_namespace_properties (as in the JDBC catalog); that row is not a visible property.
//
// Thread-safe: connections are pooled, one per concurrent caller.

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "catalog/metastore.h"
#include "catalog/sqlite_connection.h"

namespace cairn::catalog {

class SqliteMetastore final : public Metastore {
 public:
  struct Options {
    std::string path;                    // the database file; created if missing
    std::string catalog_name = "cairn";  // the catalog_name column
    int busy_timeout_ms = 5000;          // how long a write waits for another process
  };

  // Opens the database and applies pending migrations. IOError if it cannot be opened;
  // Internal if its schema is newer than this binary knows.
  static Result<std::unique_ptr<SqliteMetastore>> Open(const Options& options);

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
  explicit SqliteMetastore(Options options) : options_(std::move(options)) {}

  Result<Lease> Acquire();
  void Release(std::unique_ptr<SqliteConnection> conn);
  // Runs `body` inside BEGIN IMMEDIATE ... COMMIT (ROLLBACK when it fails). A failed COMMIT
  // returns `commit_failure`'s code with SQLite's message.
  template <typename Body>
  Status WriteTransaction(Body body, Status::Code commit_failure = Status::Code::kIOError);
  Status MigrateSchema();
  Result<bool> NamespaceExists(SqliteConnection& c, const Namespace& ns);
  // True if it recorded (`finish.owner` held the key pending).
  Result<bool> FinishKey(SqliteConnection& c, const IdempotencyFinish& finish);
  // One commit's statements inside the caller's transaction.
  Status ApplySwaps(SqliteConnection& c, const std::vector<PointerSwap>& swaps,
                    const IdempotencyFinish* finish);
  struct QueuedCommit;
  // Runs `batch` in one transaction and sets each one's status.
  void RunCommitGroup(const std::vector<QueuedCommit*>& batch);

  Options options_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<SqliteConnection>> idle_;
  std::mutex write_mu_;
  std::mutex group_mu_;  // guards queue_ and leading_
  std::condition_variable group_cv_;
  std::deque<QueuedCommit*> queue_;
  bool leading_ = false;
};

}  // namespace cairn::catalog
