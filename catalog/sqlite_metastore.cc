#include "catalog/sqlite_metastore.h"

#include <set>

#include "catalog/migration.h"

namespace cairn::catalog {
namespace {

constexpr const char* kExistsKey = "exists";

Status NoSuchNamespace(const Namespace& ns) { return NoSuchNamespaceError(ns); }



// SQL. Every statement is a literal: its address keys the per-connection statement cache.
constexpr const char* kNamespaceExists =
    "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND namespace = ?2 "
    "LIMIT 1";
constexpr const char* kInsertProperty =
    "INSERT OR REPLACE INTO iceberg_namespace_properties "
    "(catalog_name, namespace, property_key, property_value) VALUES (?1, ?2, ?3, ?4)";
constexpr const char* kDeleteProperty =
    "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND namespace = ?2 "
    "AND property_key = ?3";
constexpr const char* kSelectProperties =
    "SELECT property_key, property_value FROM iceberg_namespace_properties "
    "WHERE catalog_name = ?1 AND namespace = ?2";
constexpr const char* kSelectNamespaces =
    "SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?1 "
    "AND (?2 = '' OR substr(namespace, 1, length(?2) + 1) = ?2 || '.')";
constexpr const char* kAnyChildNamespace =
    "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ?1 "
    "AND substr(namespace, 1, length(?2) + 1) = ?2 || '.' LIMIT 1";
constexpr const char* kAnyEntryInNamespace =
    "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 "
    "LIMIT 1";
constexpr const char* kDeleteNamespace =
    "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND namespace = ?2";
constexpr const char* kSelectEntry =
    "SELECT metadata_location, cairn_version, coalesce(iceberg_type, 'TABLE') FROM "
    "iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 AND table_name = ?3";
constexpr const char* kSelectNames =
    "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 "
    "AND coalesce(iceberg_type, 'TABLE') = ?3 ORDER BY table_name";
constexpr const char* kInsertEntry =
    "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
    "previous_metadata_location, iceberg_type, cairn_version) VALUES (?1, ?2, ?3, ?4, NULL, ?5, 0)";
constexpr const char* kSwapPointer =
    "UPDATE iceberg_tables SET metadata_location = ?4, previous_metadata_location = ?5, "
    "cairn_version = cairn_version + 1 WHERE catalog_name = ?1 AND table_namespace = ?2 "
    "AND table_name = ?3 AND metadata_location = ?5 AND cairn_version = ?6 "
    "AND coalesce(iceberg_type, 'TABLE') = ?7";
constexpr const char* kDeleteEntry =
    "DELETE FROM iceberg_tables WHERE catalog_name = ?1 AND table_namespace = ?2 "
    "AND table_name = ?3 AND coalesce(iceberg_type, 'TABLE') = ?4";
constexpr const char* kRenameEntry =
    "UPDATE iceberg_tables SET table_namespace = ?4, table_name = ?5 WHERE catalog_name = ?1 "
    "AND table_namespace = ?2 AND table_name = ?3";
constexpr const char* kExpireKeys =
    "DELETE FROM cairn_idempotency_keys WHERE catalog_name = ?1 AND expires_at_ms < ?2";
constexpr const char* kSelectKey =
    "SELECT request, state, status, response, created_at_ms FROM cairn_idempotency_keys "
    "WHERE catalog_name = ?1 AND idempotency_key = ?2";
constexpr const char* kInsertKey =
    "INSERT INTO cairn_idempotency_keys (catalog_name, idempotency_key, request, state, "
    "created_at_ms, expires_at_ms, owner) VALUES (?1, ?2, ?3, 'pending', ?4, ?5, ?6)";
constexpr const char* kTakeOverKey =
    "UPDATE cairn_idempotency_keys SET created_at_ms = ?3, owner = ?4 WHERE catalog_name = ?1 "
    "AND idempotency_key = ?2 AND state = 'pending'";
constexpr const char* kFinishKey =
    "UPDATE cairn_idempotency_keys SET state = 'done', status = ?3, response = ?4 "
    "WHERE catalog_name = ?1 AND idempotency_key = ?2 AND state = 'pending' AND owner = ?5";
constexpr const char* kReleaseKey =
    "DELETE FROM cairn_idempotency_keys WHERE catalog_name = ?1 AND idempotency_key = ?2 "
    "AND state = 'pending' AND owner = ?3";
constexpr const char* kSchemaVersion = "SELECT coalesce(max(version), 0) FROM cairn_schema_migrations";
constexpr const char* kRecordMigration =
    "INSERT INTO cairn_schema_migrations (version, name, applied_at) "
    "VALUES (?1, ?2, datetime('now'))";

}  // namespace

// A pooled connection, returned to the pool when the lease ends.
class SqliteMetastore::Lease {
 public:
  Lease(SqliteMetastore* owner, std::unique_ptr<SqliteConnection> conn)
      : owner_(owner), conn_(std::move(conn)) {}
  Lease(Lease&&) = default;
  ~Lease() {
    if (conn_) owner_->Release(std::move(conn_));
  }
  SqliteConnection& operator*() { return *conn_; }
  SqliteConnection* operator->() { return conn_.get(); }

 private:
  SqliteMetastore* owner_;
  std::unique_ptr<SqliteConnection> conn_;
};

Result<std::unique_ptr<SqliteMetastore>> SqliteMetastore::Open(const Options& options) {
  std::unique_ptr<SqliteMetastore> store(new SqliteMetastore(options));
  RETURN_IF_ERROR(store->MigrateSchema());
  return store;
}

Result<SqliteMetastore::Lease> SqliteMetastore::Acquire() {
  {
    std::lock_guard lock(pool_mu_);
    if (!idle_.empty()) {
      std::unique_ptr<SqliteConnection> conn = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(conn));
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteConnection> conn,
                   SqliteConnection::Open(options_.path, options_.busy_timeout_ms));
  return Lease(this, std::move(conn));
}

void SqliteMetastore::Release(std::unique_ptr<SqliteConnection> conn) {
  std::lock_guard lock(pool_mu_);
  idle_.push_back(std::move(conn));
}

template <typename Body>
Status SqliteMetastore::WriteTransaction(Body body, Status::Code commit_failure) {
  std::lock_guard write_lock(write_mu_);
  ASSIGN_OR_RETURN(Lease conn, Acquire());
  RETURN_IF_ERROR(conn->Exec("BEGIN IMMEDIATE"));
  Status st = body(*conn);
  if (!st.ok()) {
    conn->Exec("ROLLBACK");
    return st;
  }
  Status committed = conn->Exec("COMMIT");
  if (!committed.ok()) {
    conn->Exec("ROLLBACK");
    return Status(commit_failure, committed.message());
  }
  return Status::OK();
}

Status SqliteMetastore::MigrateSchema() {
  const std::vector<Migration>& known = SqliteMigrations();
  return WriteTransaction([&](SqliteConnection& c) -> Status {
    RETURN_IF_ERROR(
        c.Exec("CREATE TABLE IF NOT EXISTS cairn_schema_migrations (version INTEGER PRIMARY "
               "KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"));
    ASSIGN_OR_RETURN(auto q, c.Prepare(kSchemaVersion));
    RETURN_IF_ERROR(q->Step().status());
    int64_t current = q->Int(0);
    q.reset();
    if (current > static_cast<int64_t>(known.size())) {
      return Status::Internal("the database schema is at version " + std::to_string(current) +
                              ", newer than this binary knows (" +
                              std::to_string(known.size()) + "): upgrade cairn");
    }
    for (const Migration& m : known) {
      if (m.version <= current) continue;
      RETURN_IF_ERROR(c.Exec(m.sql).WithPrefix("migration " + std::to_string(m.version)));
      ASSIGN_OR_RETURN(auto rec, c.Prepare(kRecordMigration));
      RETURN_IF_ERROR(rec->Bind(1, int64_t{m.version}).Bind(2, m.name).Run());
    }
    return Status::OK();
  });
}

Status SqliteMetastore::Ping() {
  ASSIGN_OR_RETURN(Lease conn, Acquire());
  ASSIGN_OR_RETURN(auto q, conn->Prepare(kSchemaVersion));
  RETURN_IF_ERROR(q->Step().status());
  int64_t version = q->Int(0);
  if (version != static_cast<int64_t>(SqliteMigrations().size())) {
    return Status::Unavailable("database schema is at version " + std::to_string(version) +
                               ", expected " + std::to_string(SqliteMigrations().size()));
  }
  return Status::OK();
}

Result<bool> SqliteMetastore::NamespaceExists(SqliteConnection& c, const Namespace& ns) {
  ASSIGN_OR_RETURN(auto q, c.Prepare(kNamespaceExists));
  q->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(ns));
  return q->Step();
}

Status SqliteMetastore::CreateNamespace(const Namespace& ns, const Properties& properties) {
  return WriteTransaction([&](SqliteConnection& c) -> Status {
    ASSIGN_OR_RETURN(bool exists, NamespaceExists(c, ns));
    if (exists) return Status::AlreadyExists("Namespace already exists: " + JoinNamespace(ns));
    Properties rows = properties;
    rows[kExistsKey] = "true";
    for (const auto& [k, v] : rows) {
      ASSIGN_OR_RETURN(auto ins, c.Prepare(kInsertProperty));
      RETURN_IF_ERROR(
          ins->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(ns)).Bind(3, k).Bind(4, v)
              .Run());
    }
    return Status::OK();
  });
}

Result<Properties> SqliteMetastore::LoadNamespace(const Namespace& ns) {
  ASSIGN_OR_RETURN(Lease conn, Acquire());
  ASSIGN_OR_RETURN(auto q, conn->Prepare(kSelectProperties));
  q->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(ns));
  Properties props;
  bool found = false;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    found = true;
    std::string key = q->Text(0);
    if (key != kExistsKey) props[key] = q->Text(1);
  }
  if (!found) return NoSuchNamespace(ns);
  return props;
}

Result<std::vector<Namespace>> SqliteMetastore::ListNamespaces(const Namespace& parent) {
  ASSIGN_OR_RETURN(Lease conn, Acquire());
  if (!parent.empty()) {
    ASSIGN_OR_RETURN(bool exists, NamespaceExists(*conn, parent));
    if (!exists) return NoSuchNamespace(parent);
  }
  ASSIGN_OR_RETURN(auto q, conn->Prepare(kSelectNamespaces));
  q->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(parent));
  std::set<Namespace> children;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    Namespace ns = SplitNamespace(q->Text(0));
    if (ns.size() > parent.size()) ns.resize(parent.size() + 1);
    if (ns.size() == parent.size() + 1) children.insert(std::move(ns));
  }
  return std::vector<Namespace>(children.begin(), children.end());
}

Status SqliteMetastore::UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                                  const std::vector<std::string>& removals) {
  return WriteTransaction([&](SqliteConnection& c) -> Status {
    ASSIGN_OR_RETURN(bool exists, NamespaceExists(c, ns));
    if (!exists) return NoSuchNamespace(ns);
    for (const std::string& k : removals) {
      if (k == kExistsKey) continue;
      ASSIGN_OR_RETURN(auto del, c.Prepare(kDeleteProperty));
      RETURN_IF_ERROR(del->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(ns)).Bind(3, k)
                          .Run());
    }
    for (const auto& [k, v] : updates) {
      if (k == kExistsKey) continue;
      ASSIGN_OR_RETURN(auto ins, c.Prepare(kInsertProperty));
      RETURN_IF_ERROR(
          ins->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(ns)).Bind(3, k).Bind(4, v)
              .Run());
    }
    return Status::OK();
  });
}

Status SqliteMetastore::DropNamespace(const Namespace& ns) {
  return WriteTransaction([&](SqliteConnection& c) -> Status {
    ASSIGN_OR_RETURN(bool exists, NamespaceExists(c, ns));
    if (!exists) return NoSuchNamespace(ns);
    const std::string joined = JoinNamespace(ns);
    {
      ASSIGN_OR_RETURN(auto q, c.Prepare(kAnyEntryInNamespace));
      q->Bind(1, options_.catalog_name).Bind(2, joined);
      ASSIGN_OR_RETURN(bool any, q->Step());
      if (any) {
        return Status::NamespaceNotEmpty("Namespace " + joined + " is not empty: it holds " +
                                         q->Text(0));
      }
    }
    {
      ASSIGN_OR_RETURN(auto q, c.Prepare(kAnyChildNamespace));
      q->Bind(1, options_.catalog_name).Bind(2, joined);
      ASSIGN_OR_RETURN(bool any, q->Step());
      if (any) {
        return Status::NamespaceNotEmpty("Namespace " + joined +
                                         " is not empty: it holds other namespaces");
      }
    }
    ASSIGN_OR_RETURN(auto del, c.Prepare(kDeleteNamespace));
    return del->Bind(1, options_.catalog_name).Bind(2, joined).Run();
  });
}

Result<Pointer> SqliteMetastore::Load(const TableIdentifier& id, EntityKind kind) {
  ASSIGN_OR_RETURN(Lease conn, Acquire());
  ASSIGN_OR_RETURN(auto q, conn->Prepare(kSelectEntry));
  q->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(id.ns)).Bind(3, id.name);
  ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row || q->Text(2) != JdbcTypeName(kind)) return NoSuchEntry(id, kind);
  return Pointer{q->Text(0), q->Int(1)};
}

Result<std::vector<std::string>> SqliteMetastore::ListNames(const Namespace& ns,
                                                            EntityKind kind) {
  ASSIGN_OR_RETURN(Lease conn, Acquire());
  ASSIGN_OR_RETURN(bool exists, NamespaceExists(*conn, ns));
  if (!exists) return NoSuchNamespace(ns);
  ASSIGN_OR_RETURN(auto q, conn->Prepare(kSelectNames));
  q->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(ns)).Bind(3, JdbcTypeName(kind));
  std::vector<std::string> names;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    names.push_back(q->Text(0));
  }
  return names;
}

Result<std::optional<IdempotencyRecord>> SqliteMetastore::ClaimIdempotencyKey(
    const std::string& key, const std::string& request, const std::string& owner,
    int64_t now_ms, int64_t expires_at_ms, int64_t stale_before_ms) {
  std::optional<IdempotencyRecord> existing;
  RETURN_IF_ERROR(WriteTransaction([&](SqliteConnection& c) -> Status {
    ASSIGN_OR_RETURN(auto expire, c.Prepare(kExpireKeys));
    RETURN_IF_ERROR(expire->Bind(1, options_.catalog_name).Bind(2, now_ms).Run());
    expire.reset();
    ASSIGN_OR_RETURN(auto q, c.Prepare(kSelectKey));
    q->Bind(1, options_.catalog_name).Bind(2, key);
    ASSIGN_OR_RETURN(bool found, q->Step());
    if (!found) {
      q.reset();
      ASSIGN_OR_RETURN(auto ins, c.Prepare(kInsertKey));
      return ins->Bind(1, options_.catalog_name).Bind(2, key).Bind(3, request).Bind(4, now_ms)
          .Bind(5, expires_at_ms).Bind(6, owner).Run();
    }
    IdempotencyRecord r{q->Text(0), q->Text(1) == "done", static_cast<int>(q->Int(2)),
                        q->Text(3), q->Int(4)};
    q.reset();
    if (!r.done && r.request == request && r.created_at_ms < stale_before_ms) {
      ASSIGN_OR_RETURN(auto take, c.Prepare(kTakeOverKey));
      return take->Bind(1, options_.catalog_name).Bind(2, key).Bind(3, now_ms).Bind(4, owner)
          .Run();
    }
    existing = std::move(r);
    return Status::OK();
  }));
  return existing;
}

Status SqliteMetastore::FinishIdempotencyKey(const IdempotencyFinish& finish) {
  return WriteTransaction([&](SqliteConnection& c) { return FinishKey(c, finish).status(); });
}

Result<bool> SqliteMetastore::FinishKey(SqliteConnection& c, const IdempotencyFinish& finish) {
  ASSIGN_OR_RETURN(auto upd, c.Prepare(kFinishKey));
  RETURN_IF_ERROR(upd->Bind(1, options_.catalog_name).Bind(2, finish.key)
                      .Bind(3, int64_t{finish.status}).Bind(4, finish.response)
                      .Bind(5, finish.owner).Run());
  return c.Changes() == 1;
}

Status SqliteMetastore::ReleaseIdempotencyKey(const std::string& key, const std::string& owner) {
  return WriteTransaction([&](SqliteConnection& c) -> Status {
    ASSIGN_OR_RETURN(auto del, c.Prepare(kReleaseKey));
    return del->Bind(1, options_.catalog_name).Bind(2, key).Bind(3, owner).Run();
  });
}

Status SqliteMetastore::ApplySwaps(SqliteConnection& c, const std::vector<PointerSwap>& swaps,
                                   const IdempotencyFinish* finish) {
  for (const PointerSwap& s : swaps) {
    const std::string ns = JoinNamespace(s.id.ns);
    if (!s.expected) {
      ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(c, s.id.ns));
      if (!ns_exists) return NoSuchNamespace(s.id.ns);
      ASSIGN_OR_RETURN(auto q, c.Prepare(kSelectEntry));
      q->Bind(1, options_.catalog_name).Bind(2, ns).Bind(3, s.id.name);
      ASSIGN_OR_RETURN(bool taken, q->Step());
      if (taken) return EntryExists(s.id, s.kind, KindFromJdbcType(q->Text(2)));
      q.reset();
      ASSIGN_OR_RETURN(auto ins, c.Prepare(kInsertEntry));
      RETURN_IF_ERROR(ins->Bind(1, options_.catalog_name).Bind(2, ns).Bind(3, s.id.name)
                          .Bind(4, s.new_location).Bind(5, JdbcTypeName(s.kind)).Run());
      continue;
    }
    ASSIGN_OR_RETURN(auto upd, c.Prepare(kSwapPointer));
    RETURN_IF_ERROR(upd->Bind(1, options_.catalog_name).Bind(2, ns).Bind(3, s.id.name)
                        .Bind(4, s.new_location).Bind(5, s.expected->metadata_location)
                        .Bind(6, s.expected->version).Bind(7, JdbcTypeName(s.kind)).Run());
    if (c.Changes() != 1) {
      return Status::CommitFailed("Commit failed: " + ToString(s.id) + " changed concurrently");
    }
  }
  if (finish == nullptr) return Status::OK();
  ASSIGN_OR_RETURN(bool recorded, FinishKey(c, *finish));
  return recorded ? Status::OK() : KeyLost(finish->key);
}

// Group commit. The caller queues its commit; if no leader is running, it becomes the leader
// and runs every queued commit in one transaction (one WAL sync for all of them), each inside
// its own savepoint, so that a commit that fails rolls back alone and fails alone. Commits
// that arrive meanwhile queue up for the next leader.
struct SqliteMetastore::QueuedCommit {
  const std::vector<PointerSwap>* swaps;
  const IdempotencyFinish* finish;
  Status status;
  bool done = false;
};

Status SqliteMetastore::Commit(const std::vector<PointerSwap>& swaps,
                               const IdempotencyFinish* finish) {
  QueuedCommit mine{&swaps, finish, Status::OK()};
  std::unique_lock lock(group_mu_);
  queue_.push_back(&mine);
  while (!mine.done) {
    if (leading_) {
      group_cv_.wait(lock);
      continue;
    }
    leading_ = true;
    std::vector<QueuedCommit*> batch(queue_.begin(), queue_.end());
    queue_.clear();
    lock.unlock();
    RunCommitGroup(batch);
    lock.lock();
    for (QueuedCommit* q : batch) q->done = true;
    leading_ = false;
    group_cv_.notify_all();
  }
  return mine.status;
}

void SqliteMetastore::RunCommitGroup(const std::vector<QueuedCommit*>& batch) {
  auto fail_all = [&](const Status& st) {
    for (QueuedCommit* q : batch) q->status = st;
  };
  std::lock_guard write_lock(write_mu_);
  Result<Lease> conn = Acquire();
  if (!conn.ok()) return fail_all(conn.status());
  SqliteConnection& c = **conn;
  if (Status st = c.Exec("BEGIN IMMEDIATE"); !st.ok()) return fail_all(st);
  bool any_applied = false;
  for (QueuedCommit* q : batch) {
    if (Status st = c.Exec("SAVEPOINT cairn_commit"); !st.ok()) {
      c.Exec("ROLLBACK");
      return fail_all(st);  // nothing is committed: a definite failure for all
    }
    q->status = ApplySwaps(c, *q->swaps, q->finish);
    Status undo = q->status.ok() ? Status::OK() : c.Exec("ROLLBACK TO cairn_commit");
    Status release = c.Exec("RELEASE cairn_commit");
    if (!undo.ok() || !release.ok()) {
      c.Exec("ROLLBACK");
      return fail_all(undo.ok() ? release : undo);
    }
    any_applied |= q->status.ok();
  }
  if (!any_applied) {
    c.Exec("ROLLBACK");
    return;
  }
  Status committed = c.Exec("COMMIT");
  if (!committed.ok()) {
    c.Exec("ROLLBACK");
    // Whether the commits that had applied are durable is not known.
    for (QueuedCommit* q : batch) {
      if (q->status.ok()) q->status = Status::CommitStateUnknown(committed.message());
    }
  }
}

Status SqliteMetastore::Drop(const TableIdentifier& id, EntityKind kind) {
  return WriteTransaction([&](SqliteConnection& c) -> Status {
    ASSIGN_OR_RETURN(auto del, c.Prepare(kDeleteEntry));
    RETURN_IF_ERROR(del->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(id.ns))
                        .Bind(3, id.name).Bind(4, JdbcTypeName(kind)).Run());
    if (c.Changes() != 1) return NoSuchEntry(id, kind);
    return Status::OK();
  });
}

Status SqliteMetastore::Rename(const TableIdentifier& from, const TableIdentifier& to,
                               EntityKind kind) {
  return WriteTransaction([&](SqliteConnection& c) -> Status {
    {
      ASSIGN_OR_RETURN(auto q, c.Prepare(kSelectEntry));
      q->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(from.ns)).Bind(3, from.name);
      ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row || q->Text(2) != JdbcTypeName(kind)) return NoSuchEntry(from, kind);
    }
    ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(c, to.ns));
    if (!ns_exists) return NoSuchNamespace(to.ns);
    {
      ASSIGN_OR_RETURN(auto q, c.Prepare(kSelectEntry));
      q->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(to.ns)).Bind(3, to.name);
      ASSIGN_OR_RETURN(bool taken, q->Step());
      if (taken) return RenameTargetExists(from, to, KindFromJdbcType(q->Text(2)));
    }
    ASSIGN_OR_RETURN(auto upd, c.Prepare(kRenameEntry));
    return upd->Bind(1, options_.catalog_name).Bind(2, JoinNamespace(from.ns)).Bind(3, from.name)
        .Bind(4, JoinNamespace(to.ns)).Bind(5, to.name).Run();
  });
}

}  // namespace cairn::catalog
