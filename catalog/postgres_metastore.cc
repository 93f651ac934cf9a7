#include "catalog/postgres_metastore.h"

#include <pqxx/pqxx>

#include <optional>
#include <set>

#include "catalog/migration.h"

namespace cairn::catalog {
namespace {

constexpr const char* kExistsKey = "exists";
constexpr long kMigrationLockKey = 0x6361697226;  // "cair&": the advisory lock of migrations

Status NoSuchNamespace(const Namespace& ns) { return NoSuchNamespaceError(ns); }



// Serialization failures, deadlocks, lock and statement timeouts may pass on a retry.
Status FromSqlError(const pqxx::sql_error& e) {
  const std::string& state = e.sqlstate();
  if (state == "40001" || state == "40P01" || state == "55P03" || state == "57014") {
    return Status::Unavailable(std::string("PostgreSQL: ") + e.what());
  }
  return Status::Internal(std::string("PostgreSQL: ") + e.what());
}

bool NamespaceExists(pqxx::transaction_base& tx, const std::string& catalog,
                     const Namespace& ns) {
  return !tx.exec_params("SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = $1 "
                         "AND namespace = $2 LIMIT 1",
                         catalog, JoinNamespace(ns))
              .empty();
}

// The entry's type ("TABLE"/"VIEW"), or "" when absent. `lock` takes a row lock.
std::string EntryType(pqxx::transaction_base& tx, const std::string& catalog,
                      const TableIdentifier& id) {
  pqxx::result r = tx.exec_params(
      "SELECT coalesce(iceberg_type, 'TABLE') FROM iceberg_tables WHERE catalog_name = $1 "
      "AND table_namespace = $2 AND table_name = $3",
      catalog, JoinNamespace(id.ns), id.name);
  return r.empty() ? "" : r[0][0].as<std::string>();
}

}  // namespace

struct PostgresMetastore::Connection {
  explicit Connection(const std::string& url) : pq(url) {}
  pqxx::connection pq;
};

// A pooled connection; returned to the pool when the lease ends, unless it broke.
class PostgresMetastore::Lease {
 public:
  Lease(PostgresMetastore* owner, std::unique_ptr<Connection> conn)
      : owner_(owner), conn_(std::move(conn)) {}
  Lease(Lease&&) = default;
  ~Lease() {
    if (conn_ && conn_->pq.is_open()) owner_->Release(std::move(conn_));
  }
  pqxx::connection& operator*() { return conn_->pq; }
  // The connection is broken: close it instead of pooling it.
  void Discard() { conn_.reset(); }

 private:
  PostgresMetastore* owner_;
  std::unique_ptr<Connection> conn_;
};

PostgresMetastore::PostgresMetastore(Options options) : options_(std::move(options)) {}

PostgresMetastore::~PostgresMetastore() = default;

Result<std::unique_ptr<PostgresMetastore>> PostgresMetastore::Open(const Options& options) {
  std::unique_ptr<PostgresMetastore> store(new PostgresMetastore(options));
  RETURN_IF_ERROR(store->Migrate());
  return store;
}

Result<PostgresMetastore::Lease> PostgresMetastore::Acquire() {
  {
    std::lock_guard lock(pool_mu_);
    while (!idle_.empty()) {
      std::unique_ptr<Connection> conn = std::move(idle_.back());
      idle_.pop_back();
      if (conn->pq.is_open()) return Lease(this, std::move(conn));
    }
  }
  try {
    auto conn = std::make_unique<Connection>(options_.url);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    conn->pq.inhibit_reactivation(true);  // never silently reconnect: a lost session is an error
#pragma GCC diagnostic pop
    return Lease(this, std::move(conn));
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("cannot connect to PostgreSQL: ") + e.what());
  }
}

void PostgresMetastore::Release(std::unique_ptr<Connection> conn) {
  std::lock_guard lock(pool_mu_);
  if (idle_.size() < options_.max_idle_connections) idle_.push_back(std::move(conn));
}

template <typename Body>
Status PostgresMetastore::Transact(Body body, Status::Code lost_commit) {
  // A pooled connection may have died while idle (a restarted server, a terminated backend).
  // Until BEGIN succeeds nothing of ours has been sent, so another connection is safe to try;
  // after that, never: a statement or COMMIT is not re-run.
  constexpr int kConnectAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    ASSIGN_OR_RETURN(Lease conn, Acquire());
    std::optional<pqxx::work> tx;
    try {
      tx.emplace(*conn);
    } catch (const std::exception& e) {
      conn.Discard();
      if (attempt < kConnectAttempts) continue;
      return Status::Unavailable(std::string("PostgreSQL connection unusable: ") + e.what());
    }
    return RunTransaction(*tx, conn, body, lost_commit);
  }
}

template <typename Body, typename Work>
Status PostgresMetastore::RunTransaction(Work& tx, Lease& conn, Body& body,
                                         Status::Code lost_commit) {
  try {
    Status st = body(tx);
    if (!st.ok()) return st;  // the transaction aborts when `tx` goes out of scope
    try {
      tx.commit();
    } catch (const pqxx::in_doubt_error& e) {
      conn.Discard();
      return Status(lost_commit, std::string("PostgreSQL commit outcome unknown: ") + e.what());
    } catch (const pqxx::broken_connection& e) {
      conn.Discard();
      return Status(lost_commit, std::string("PostgreSQL connection lost during commit: ") +
                                     e.what());
    }
    return Status::OK();
  } catch (const pqxx::broken_connection& e) {
    conn.Discard();
    return Status::Unavailable(std::string("PostgreSQL connection lost: ") + e.what());
  } catch (const pqxx::sql_error& e) {
    return FromSqlError(e);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("PostgreSQL: ") + e.what());
  }
}

template <typename Body>
Status PostgresMetastore::Read(Body body) {
  constexpr int kAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    ASSIGN_OR_RETURN(Lease conn, Acquire());
    try {
      pqxx::nontransaction tx(*conn);
      return body(tx);
    } catch (const pqxx::broken_connection& e) {
      conn.Discard();  // died while idle, or now: a read is safe to run again elsewhere
      if (attempt < kAttempts) continue;
      return Status::Unavailable(std::string("PostgreSQL connection lost: ") + e.what());
    } catch (const pqxx::sql_error& e) {
      return FromSqlError(e);
    } catch (const std::exception& e) {
      return Status::Internal(std::string("PostgreSQL: ") + e.what());
    }
  }
}

Status PostgresMetastore::Migrate() {
  const std::vector<Migration>& known = PostgresMigrations();
  return Transact([&](pqxx::work& tx) -> Status {
    // Held until this transaction ends: replicas starting together migrate one at a time.
    tx.exec_params("SELECT pg_advisory_xact_lock($1)", kMigrationLockKey);
    tx.exec(
        "CREATE TABLE IF NOT EXISTS cairn_schema_migrations (version INTEGER PRIMARY KEY, "
        "name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
    long current = tx.exec("SELECT coalesce(max(version), 0) FROM cairn_schema_migrations")[0][0]
                       .as<long>();
    if (current > static_cast<long>(known.size())) {
      return Status::Internal("the database schema is at version " + std::to_string(current) +
                              ", newer than this binary knows (" +
                              std::to_string(known.size()) + "): upgrade cairn");
    }
    for (const Migration& m : known) {
      if (m.version <= current) continue;
      tx.exec(m.sql);
      tx.exec_params("INSERT INTO cairn_schema_migrations (version, name) VALUES ($1, $2)",
                     m.version, std::string(m.name));
    }
    return Status::OK();
  });
}

Status PostgresMetastore::Ping() {
  long version = 0;
  Status st = Transact([&](pqxx::work& tx) -> Status {
    version = tx.exec("SELECT coalesce(max(version), 0) FROM cairn_schema_migrations")[0][0]
                  .as<long>();
    return Status::OK();
  });
  RETURN_IF_ERROR(st);
  if (version != static_cast<long>(PostgresMigrations().size())) {
    return Status::Unavailable("database schema is at version " + std::to_string(version) +
                               ", expected " + std::to_string(PostgresMigrations().size()));
  }
  return Status::OK();
}

Status PostgresMetastore::CreateNamespace(const Namespace& ns, const Properties& properties) {
  return Transact([&](pqxx::work& tx) -> Status {
    // The primary key serializes concurrent creates of the same namespace.
    pqxx::result r = tx.exec_params(
        "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
        "property_value) VALUES ($1, $2, $3, 'true') ON CONFLICT DO NOTHING",
        options_.catalog_name, JoinNamespace(ns), std::string(kExistsKey));
    if (r.affected_rows() != 1) {
      return Status::AlreadyExists("Namespace already exists: " + JoinNamespace(ns));
    }
    for (const auto& [k, v] : properties) {
      if (k == kExistsKey) continue;
      tx.exec_params(
          "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
          "property_value) VALUES ($1, $2, $3, $4)",
          options_.catalog_name, JoinNamespace(ns), k, v);
    }
    return Status::OK();
  });
}

Result<Properties> PostgresMetastore::LoadNamespace(const Namespace& ns) {
  Properties props;
  bool found = false;
  RETURN_IF_ERROR(Transact([&](pqxx::work& tx) -> Status {
    pqxx::result r = tx.exec_params(
        "SELECT property_key, property_value FROM iceberg_namespace_properties WHERE "
        "catalog_name = $1 AND namespace = $2",
        options_.catalog_name, JoinNamespace(ns));
    for (const auto& row : r) {
      found = true;
      std::string key = row[0].as<std::string>();
      if (key != kExistsKey) props[key] = row[1].is_null() ? "" : row[1].as<std::string>();
    }
    return Status::OK();
  }));
  if (!found) return NoSuchNamespace(ns);
  return props;
}

Result<std::vector<Namespace>> PostgresMetastore::ListNamespaces(const Namespace& parent) {
  std::set<Namespace> children;
  RETURN_IF_ERROR(Transact([&](pqxx::work& tx) -> Status {
    if (!parent.empty() && !NamespaceExists(tx, options_.catalog_name, parent)) {
      return NoSuchNamespace(parent);
    }
    std::string prefix = JoinNamespace(parent);
    pqxx::result r = tx.exec_params(
        "SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE catalog_name = $1 "
        "AND ($2 = '' OR left(namespace, length($2) + 1) = $2 || '.')",
        options_.catalog_name, prefix);
    for (const auto& row : r) {
      Namespace ns = SplitNamespace(row[0].as<std::string>());
      if (ns.size() > parent.size()) ns.resize(parent.size() + 1);
      if (ns.size() == parent.size() + 1) children.insert(std::move(ns));
    }
    return Status::OK();
  }));
  return std::vector<Namespace>(children.begin(), children.end());
}

Status PostgresMetastore::UpdateNamespaceProperties(const Namespace& ns,
                                                    const Properties& updates,
                                                    const std::vector<std::string>& removals) {
  return Transact([&](pqxx::work& tx) -> Status {
    if (!NamespaceExists(tx, options_.catalog_name, ns)) return NoSuchNamespace(ns);
    for (const std::string& k : removals) {
      if (k == kExistsKey) continue;
      tx.exec_params(
          "DELETE FROM iceberg_namespace_properties WHERE catalog_name = $1 AND namespace = $2 "
          "AND property_key = $3",
          options_.catalog_name, JoinNamespace(ns), k);
    }
    for (const auto& [k, v] : updates) {
      if (k == kExistsKey) continue;
      tx.exec_params(
          "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
          "property_value) VALUES ($1, $2, $3, $4) ON CONFLICT (catalog_name, namespace, "
          "property_key) DO UPDATE SET property_value = EXCLUDED.property_value",
          options_.catalog_name, JoinNamespace(ns), k, v);
    }
    return Status::OK();
  });
}

Status PostgresMetastore::DropNamespace(const Namespace& ns) {
  return Transact([&](pqxx::work& tx) -> Status {
    const std::string joined = JoinNamespace(ns);
    // Lock the namespace's rows so a concurrent create in it waits for the outcome.
    pqxx::result mine = tx.exec_params(
        "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = $1 AND namespace = $2 "
        "FOR UPDATE",
        options_.catalog_name, joined);
    if (mine.empty()) return NoSuchNamespace(ns);
    pqxx::result entry = tx.exec_params(
        "SELECT table_name FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 "
        "LIMIT 1",
        options_.catalog_name, joined);
    if (!entry.empty()) {
      return Status::NamespaceNotEmpty("Namespace " + joined + " is not empty: it holds " +
                                       entry[0][0].as<std::string>());
    }
    pqxx::result child = tx.exec_params(
        "SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = $1 AND "
        "left(namespace, length($2) + 1) = $2 || '.' LIMIT 1",
        options_.catalog_name, joined);
    if (!child.empty()) {
      return Status::NamespaceNotEmpty("Namespace " + joined +
                                       " is not empty: it holds other namespaces");
    }
    tx.exec_params(
        "DELETE FROM iceberg_namespace_properties WHERE catalog_name = $1 AND namespace = $2",
        options_.catalog_name, joined);
    return Status::OK();
  });
}

Result<Pointer> PostgresMetastore::Load(const TableIdentifier& id, EntityKind kind) {
  std::optional<Pointer> ptr;
  RETURN_IF_ERROR(Read([&](pqxx::transaction_base& tx) -> Status {
    pqxx::result r = tx.exec_params(
        "SELECT metadata_location, cairn_version, coalesce(iceberg_type, 'TABLE') FROM "
        "iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3",
        options_.catalog_name, JoinNamespace(id.ns), id.name);
    if (!r.empty() && r[0][2].as<std::string>() == JdbcTypeName(kind)) {
      ptr = Pointer{r[0][0].as<std::string>(), r[0][1].as<int64_t>()};
    }
    return Status::OK();
  }));
  if (!ptr) return NoSuchEntry(id, kind);
  return *ptr;
}

Result<std::vector<std::string>> PostgresMetastore::ListNames(const Namespace& ns,
                                                              EntityKind kind) {
  std::vector<std::string> names;
  RETURN_IF_ERROR(Transact([&](pqxx::work& tx) -> Status {
    if (!NamespaceExists(tx, options_.catalog_name, ns)) return NoSuchNamespace(ns);
    pqxx::result r = tx.exec_params(
        "SELECT table_name FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 "
        "AND coalesce(iceberg_type, 'TABLE') = $3 ORDER BY table_name COLLATE \"C\"",
        options_.catalog_name, JoinNamespace(ns), std::string(JdbcTypeName(kind)));
    for (const auto& row : r) names.push_back(row[0].as<std::string>());
    return Status::OK();
  }));
  return names;
}

Result<std::optional<IdempotencyRecord>> PostgresMetastore::ClaimIdempotencyKey(
    const std::string& key, const std::string& request, const std::string& owner,
    int64_t now_ms, int64_t expires_at_ms, int64_t stale_before_ms) {
  std::optional<IdempotencyRecord> existing;
  RETURN_IF_ERROR(Transact([&](pqxx::work& tx) -> Status {
    tx.exec_params(
        "DELETE FROM cairn_idempotency_keys WHERE catalog_name = $1 AND expires_at_ms < $2",
        options_.catalog_name, now_ms);
    pqxx::result ins = tx.exec_params(
        "INSERT INTO cairn_idempotency_keys (catalog_name, idempotency_key, request, state, "
        "created_at_ms, expires_at_ms, owner) VALUES ($1, $2, $3, 'pending', $4, $5, $6) "
        "ON CONFLICT DO NOTHING",
        options_.catalog_name, key, request, now_ms, expires_at_ms, owner);
    if (ins.affected_rows() == 1) return Status::OK();
    pqxx::result r = tx.exec_params(
        "SELECT request, state, coalesce(status, 0), coalesce(response, ''), created_at_ms "
        "FROM cairn_idempotency_keys WHERE catalog_name = $1 AND idempotency_key = $2 "
        "FOR UPDATE",
        options_.catalog_name, key);
    if (r.empty()) return Status::Unavailable("idempotency key vanished while claiming it");
    IdempotencyRecord rec{r[0][0].as<std::string>(), r[0][1].as<std::string>() == "done",
                          r[0][2].as<int>(), r[0][3].as<std::string>(), r[0][4].as<int64_t>()};
    if (!rec.done && rec.request == request && rec.created_at_ms < stale_before_ms) {
      tx.exec_params(
          "UPDATE cairn_idempotency_keys SET created_at_ms = $3, owner = $4 WHERE "
          "catalog_name = $1 AND idempotency_key = $2 AND state = 'pending'",
          options_.catalog_name, key, now_ms, owner);
      return Status::OK();
    }
    existing = std::move(rec);
    return Status::OK();
  }));
  return existing;
}

namespace {

// True if it recorded (`finish.owner` held the key pending).
bool FinishKey(pqxx::transaction_base& tx, const std::string& catalog,
               const IdempotencyFinish& finish) {
  pqxx::result r = tx.exec_params(
      "UPDATE cairn_idempotency_keys SET state = 'done', status = $3, response = $4 "
      "WHERE catalog_name = $1 AND idempotency_key = $2 AND state = 'pending' AND owner = $5",
      catalog, finish.key, finish.status, finish.response, finish.owner);
  return r.affected_rows() == 1;
}

}  // namespace

Status PostgresMetastore::FinishIdempotencyKey(const IdempotencyFinish& finish) {
  return Transact([&](pqxx::work& tx) -> Status {
    FinishKey(tx, options_.catalog_name, finish);
    return Status::OK();
  });
}

Status PostgresMetastore::ReleaseIdempotencyKey(const std::string& key,
                                                const std::string& owner) {
  return Transact([&](pqxx::work& tx) -> Status {
    tx.exec_params(
        "DELETE FROM cairn_idempotency_keys WHERE catalog_name = $1 AND idempotency_key = $2 "
        "AND state = 'pending' AND owner = $3",
        options_.catalog_name, key, owner);
    return Status::OK();
  });
}

Status PostgresMetastore::Commit(const std::vector<PointerSwap>& swaps,
                                 const IdempotencyFinish* finish) {
  auto body = [&](pqxx::work& tx) -> Status {
    for (const PointerSwap& s : swaps) {
      const std::string ns = JoinNamespace(s.id.ns);
      if (!s.expected) {
        if (!NamespaceExists(tx, options_.catalog_name, s.id.ns)) {
          return NoSuchNamespace(s.id.ns);
        }
        pqxx::result r = tx.exec_params(
            "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
            "metadata_location, previous_metadata_location, iceberg_type, cairn_version) "
            "VALUES ($1, $2, $3, $4, NULL, $5, 0) ON CONFLICT DO NOTHING",
            options_.catalog_name, ns, s.id.name, s.new_location,
            std::string(JdbcTypeName(s.kind)));
        if (r.affected_rows() != 1) {
          return EntryExists(s.id, s.kind, KindFromJdbcType(EntryType(tx, options_.catalog_name, s.id)));
        }
        continue;
      }
      // The compare-and-swap: one statement, exactly one row or someone else won.
      pqxx::result r = tx.exec_params(
          "UPDATE iceberg_tables SET metadata_location = $4, previous_metadata_location = $5, "
          "cairn_version = cairn_version + 1 WHERE catalog_name = $1 AND table_namespace = $2 "
          "AND table_name = $3 AND metadata_location = $5 AND cairn_version = $6 "
          "AND coalesce(iceberg_type, 'TABLE') = $7",
          options_.catalog_name, ns, s.id.name, s.new_location, s.expected->metadata_location,
          s.expected->version, std::string(JdbcTypeName(s.kind)));
      if (r.affected_rows() != 1) {
        return Status::CommitFailed("Commit failed: " + ToString(s.id) +
                                    " changed concurrently");
      }
    }
    if (finish != nullptr && !FinishKey(tx, options_.catalog_name, *finish)) {
      return KeyLost(finish->key);
    }
    return Status::OK();
  };
  return Transact(body, Status::Code::kCommitStateUnknown);
}

Status PostgresMetastore::Drop(const TableIdentifier& id, EntityKind kind) {
  return Transact([&](pqxx::work& tx) -> Status {
    pqxx::result r = tx.exec_params(
        "DELETE FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND "
        "table_name = $3 AND coalesce(iceberg_type, 'TABLE') = $4",
        options_.catalog_name, JoinNamespace(id.ns), id.name, std::string(JdbcTypeName(kind)));
    if (r.affected_rows() != 1) return NoSuchEntry(id, kind);
    return Status::OK();
  });
}

Status PostgresMetastore::Rename(const TableIdentifier& from, const TableIdentifier& to,
                                 EntityKind kind) {
  return Transact([&](pqxx::work& tx) -> Status {
    if (EntryType(tx, options_.catalog_name, from) != JdbcTypeName(kind)) {
      return NoSuchEntry(from, kind);
    }
    if (!NamespaceExists(tx, options_.catalog_name, to.ns)) return NoSuchNamespace(to.ns);
    std::string taken = EntryType(tx, options_.catalog_name, to);
    if (!taken.empty()) return RenameTargetExists(from, to, KindFromJdbcType(taken));
    try {
      pqxx::subtransaction sub(tx);
      pqxx::result r = sub.exec_params(
          "UPDATE iceberg_tables SET table_namespace = $4, table_name = $5 WHERE catalog_name = "
          "$1 AND table_namespace = $2 AND table_name = $3",
          options_.catalog_name, JoinNamespace(from.ns), from.name, JoinNamespace(to.ns),
          to.name);
      sub.commit();
      if (r.affected_rows() != 1) return NoSuchEntry(from, kind);
    } catch (const pqxx::unique_violation&) {
      return RenameTargetExists(from, to, kind);  // created concurrently
    }
    return Status::OK();
  });
}

}  // namespace cairn::catalog
