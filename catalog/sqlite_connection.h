#pragma once

// SqliteConnection: one SQLite connection with cached prepared statements, and
// SqliteStatement: a cached statement in use, reset when it goes out of scope.
//
// A connection is used by one thread at a time (SqliteMetastore pools them).

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "engine/status.h"

namespace cairn::catalog {

using engine::Result;
using engine::Status;

class SqliteStatement {
 public:
  explicit SqliteStatement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Binds parameter `index` (1-based).
  SqliteStatement& Bind(int index, std::string_view text);
  SqliteStatement& Bind(int index, int64_t value);

  // Runs one step: true if a row is available, false when done.
  Result<bool> Step();
  // Steps until done (for statements returning no rows).
  Status Run();

  std::string Text(int column) const;
  int64_t Int(int column) const;
  bool IsNull(int column) const;

 private:
  sqlite3_stmt* stmt_;
};

class SqliteConnection {
 public:
  // Opens (creating if missing) the database at `path` with WAL, synchronous=FULL and the
  // busy timeout. IOError if it cannot.
  static Result<std::unique_ptr<SqliteConnection>> Open(const std::string& path,
                                                        int busy_timeout_ms);
  ~SqliteConnection();

  // Runs statements with no parameters and no result rows.
  Status Exec(const char* sql);
  // A cached prepared statement for `sql` (the pointer's identity is the cache key, so pass
  // string literals). REQUIRES: no other statement for the same sql is in use.
  Result<std::unique_ptr<SqliteStatement>> Prepare(const char* sql);
  // Number of rows changed by the last statement.
  int64_t Changes() const;

 private:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  std::map<const char*, sqlite3_stmt*> cache_;
};

// Maps a SQLite result code to a Status (busy/locked: Unavailable).
Status SqliteError(int rc, sqlite3* db, const std::string& what);

}  // namespace cairn::catalog
