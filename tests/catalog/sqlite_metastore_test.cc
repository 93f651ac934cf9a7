// What SqliteMetastore adds to the Metastore contract: its file persists, migrations run once
// and are recorded, a newer schema is refused, and the JDBC layout's bookkeeping stays hidden.

#include <sqlite3.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "catalog/migration.h"
#include "catalog/sqlite_metastore.h"
#include "tests/catalog/test_support.h"

namespace cairn::catalog {
namespace {

using testing::TempDir;

std::unique_ptr<SqliteMetastore> MustOpen(const std::string& path) {
  auto opened = SqliteMetastore::Open({.path = path});
  REQUIRE_OK(opened);
  return std::move(opened).value();
}

// Direct access to the database file, as another tool would have it.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    REQUIRE(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
    sqlite3_busy_timeout(db_, 5000);
  }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;
  ~RawDb() { sqlite3_close(db_); }

  void Exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    std::string message = err ? err : "";
    sqlite3_free(err);
    REQUIRE_MESSAGE(rc == SQLITE_OK, sql << ": " << message);
  }

  // Every row of a query, each column as text ("NULL" for null).
  std::vector<std::vector<std::string>> Rows(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    REQUIRE_MESSAGE(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK,
                    sql << ": " << sqlite3_errmsg(db_));
    std::vector<std::vector<std::string>> rows;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const unsigned char* text = sqlite3_column_text(stmt, i);
        row.push_back(text ? reinterpret_cast<const char*>(text) : "NULL");
      }
      rows.push_back(std::move(row));
    }
    sqlite3_finalize(stmt);
    REQUIRE_MESSAGE(rc == SQLITE_DONE, sql << ": " << sqlite3_errmsg(db_));
    return rows;
  }

 private:
  sqlite3* db_ = nullptr;
};

TEST_CASE("reopening a SQLite metastore keeps its data and applies each migration once") {
  TempDir dir;
  const std::string path = dir.path() + "/catalog.db";
  const TableIdentifier t{{"db"}, "t"};
  {
    auto store = MustOpen(path);
    REQUIRE_OK(store->CreateNamespace({"db"}, {{"owner", "ann"}}));
    REQUIRE_OK(store->Commit({PointerSwap{t, EntityKind::kTable, std::nullopt, "file:///w/m0"}}));
  }
  for (int reopen = 0; reopen < 2; ++reopen) {
    auto store = MustOpen(path);
    CHECK_OK(store->Ping());
    auto props = store->LoadNamespace({"db"});
    REQUIRE_OK(props);
    CHECK(*props == engine::Properties{{"owner", "ann"}});
    auto ptr = store->Load(t, EntityKind::kTable);
    REQUIRE_OK(ptr);
    CHECK(ptr->metadata_location == "file:///w/m0");
  }

  RawDb raw(path);
  auto rows = raw.Rows(
      "SELECT version, count(*) FROM cairn_schema_migrations GROUP BY version ORDER BY version");
  const std::vector<Migration>& known = SqliteMigrations();
  REQUIRE(!known.empty());
  REQUIRE(rows.size() == known.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i][0] == std::to_string(known[i].version));
    CHECK(rows[i][1] == "1");
  }
}

TEST_CASE("two SQLite metastores opened on one file see each other's commits") {
  TempDir dir;
  const std::string path = dir.path() + "/catalog.db";
  auto first = MustOpen(path);
  auto second = MustOpen(path);
  const TableIdentifier t{{"db"}, "t"};
  REQUIRE_OK(first->CreateNamespace({"db"}, {}));
  REQUIRE_OK(second->Commit({PointerSwap{t, EntityKind::kTable, std::nullopt, "file:///w/m0"}}));
  auto p0 = first->Load(t, EntityKind::kTable);
  REQUIRE_OK(p0);
  REQUIRE_OK(first->Commit({PointerSwap{t, EntityKind::kTable, *p0, "file:///w/m1"}}));
  // The second store's view of the old pointer is now stale.
  CHECK_CODE(second->Commit({PointerSwap{t, EntityKind::kTable, *p0, "file:///w/m2"}}),
             kCommitFailed);
  auto now = second->Load(t, EntityKind::kTable);
  REQUIRE_OK(now);
  CHECK(now->metadata_location == "file:///w/m1");
}

TEST_CASE("a SQLite database with a schema newer than this binary is refused") {
  TempDir dir;
  const std::string path = dir.path() + "/catalog.db";
  auto store = MustOpen(path);
  CHECK_OK(store->Ping());

  const int64_t newer = static_cast<int64_t>(SqliteMigrations().size()) + 1;
  {
    RawDb raw(path);
    raw.Exec("INSERT INTO cairn_schema_migrations (version, name, applied_at) VALUES (" +
             std::to_string(newer) + ", 'from_the_future', datetime('now'))");
  }

  auto reopened = SqliteMetastore::Open({.path = path});
  REQUIRE_FALSE(reopened.ok());
  CHECK_CODE(reopened, kInternal);
  CHECK_MESSAGE(reopened.status().message().find("newer") != std::string::npos,
                reopened.status().ToString());
  // A running store notices too, so /ready fails.
  CHECK_FALSE(store->Ping().ok());
}

TEST_CASE("a SQLite metastore that cannot create its file fails with IOError") {
  TempDir dir;
  auto opened = SqliteMetastore::Open({.path = dir.path() + "/no/such/dir/catalog.db"});
  CHECK_CODE(opened, kIOError);
}

TEST_CASE("SQLite keeps a namespace's exists row in the JDBC table but never shows it") {
  TempDir dir;
  const std::string path = dir.path() + "/catalog.db";
  auto store = MustOpen(path);
  REQUIRE_OK(store->CreateNamespace({"a", "b"}, {{"k", "v"}}));

  RawDb raw(path);
  auto rows = raw.Rows(
      "SELECT catalog_name, namespace, property_key, property_value FROM "
      "iceberg_namespace_properties ORDER BY property_key");
  CHECK(rows == std::vector<std::vector<std::string>>{{"cairn", "a.b", "exists", "true"},
                                                      {"cairn", "a.b", "k", "v"}});
  auto props = store->LoadNamespace({"a", "b"});
  REQUIRE_OK(props);
  CHECK(*props == engine::Properties{{"k", "v"}});
}

TEST_CASE("SQLite stores pointers in the JDBC layout with the previous location") {
  TempDir dir;
  const std::string path = dir.path() + "/catalog.db";
  auto store = MustOpen(path);
  const TableIdentifier t{{"a", "b"}, "t"};
  REQUIRE_OK(store->CreateNamespace({"a", "b"}, {}));
  REQUIRE_OK(store->Commit({PointerSwap{t, EntityKind::kTable, std::nullopt, "file:///w/m0"}}));
  auto p0 = store->Load(t, EntityKind::kTable);
  REQUIRE_OK(p0);
  REQUIRE_OK(store->Commit({PointerSwap{t, EntityKind::kTable, *p0, "file:///w/m1"}}));

  RawDb raw(path);
  auto rows = raw.Rows(
      "SELECT catalog_name, table_namespace, table_name, metadata_location, "
      "previous_metadata_location, iceberg_type FROM iceberg_tables");
  CHECK(rows == std::vector<std::vector<std::string>>{
                    {"cairn", "a.b", "t", "file:///w/m1", "file:///w/m0", "TABLE"}});
}

TEST_CASE("two catalogs sharing one SQLite file do not see each other's entries") {
  TempDir dir;
  const std::string path = dir.path() + "/catalog.db";
  auto prod = SqliteMetastore::Open({.path = path, .catalog_name = "prod"});
  auto test = SqliteMetastore::Open({.path = path, .catalog_name = "test"});
  REQUIRE_OK(prod);
  REQUIRE_OK(test);
  REQUIRE_OK((*prod)->CreateNamespace({"db"}, {}));
  CHECK_CODE((*test)->LoadNamespace({"db"}), kNoSuchNamespace);
  REQUIRE_OK((*test)->CreateNamespace({"db"}, {}));
  REQUIRE_OK((*prod)->Commit(
      {PointerSwap{{{"db"}, "t"}, EntityKind::kTable, std::nullopt, "file:///w/m0"}}));
  CHECK_CODE((*test)->Load({{"db"}, "t"}, EntityKind::kTable), kNoSuchTable);
  auto names = (*test)->ListNames({"db"}, EntityKind::kTable);
  REQUIRE_OK(names);
  CHECK(names->empty());
}

}  // namespace
}  // namespace cairn::catalog
