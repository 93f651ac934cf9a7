#include "catalog/sqlite_connection.h"

#include <chrono>
#include <thread>

namespace cairn::catalog {

Status SqliteError(int rc, sqlite3* db, const std::string& what) {
  std::string msg = what + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  int primary = rc & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    return Status::Unavailable("database is busy: " + msg);
  }
  if (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN) {
    return Status::IOError(msg);
  }
  return Status::Internal(msg);
}

SqliteStatement::~SqliteStatement() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

SqliteStatement& SqliteStatement::Bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Result<bool> SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(rc, sqlite3_db_handle(stmt_), "sqlite step");
}

Status SqliteStatement::Run() {
  for (;;) {
    ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return Status::OK();
  }
}

std::string SqliteStatement::Text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  if (p == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

int64_t SqliteStatement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

bool SqliteStatement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

Result<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(const std::string& path,
                                                                 int busy_timeout_ms) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    Status st = Status::IOError("cannot open SQLite database " + path + ": " +
                                (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
    sqlite3_close(db);
    return st;
  }
  std::unique_ptr<SqliteConnection> conn(new SqliteConnection(db));
  sqlite3_busy_timeout(db, busy_timeout_ms);
  // Switching a new file to WAL while another process opens it can answer SQLITE_BUSY at
  // once, without the busy handler (replicas started together on one file): retry it for
  // as long as the busy timeout allows.
  auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  for (;;) {
    int rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) break;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= give_up) {
      return SqliteError(rc, db, "sqlite: cannot switch " + path + " to WAL");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  RETURN_IF_ERROR(conn->Exec("PRAGMA synchronous=FULL"));
  return conn;
}

SqliteConnection::~SqliteConnection() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close(db_);
}

Status SqliteConnection::Exec(const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::OK();
  std::string msg = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  Status st = SqliteError(rc, nullptr, "sqlite");
  return Status(st.code(), "sqlite: " + msg);
}

Result<std::unique_ptr<SqliteStatement>> SqliteConnection::Prepare(const char* sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return SqliteError(rc, db_, "sqlite prepare");
    it = cache_.emplace(sql, stmt).first;
  }
  return std::make_unique<SqliteStatement>(it->second);
}

int64_t SqliteConnection::Changes() const { return sqlite3_changes64(db_); }

}  // namespace cairn::catalog
