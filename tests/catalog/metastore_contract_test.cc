// The Metastore contract, run against every implementation: MemoryMetastore (the reference),
// SqliteMetastore (on a fresh file in a temporary directory) and PostgresMetastore (on the
// PostgreSQL that ./run.sh test starts, named by CAIRN_TEST_POSTGRES_URL; each case gets a
// catalog name of its own, so it starts from an empty catalog).

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "catalog/memory_metastore.h"
#include "catalog/metastore.h"
#include "catalog/postgres_metastore.h"
#include "catalog/sqlite_metastore.h"
#include "tests/catalog/test_support.h"

namespace cairn::catalog {
namespace {

using engine::Status;
using testing::TempDir;

struct MemoryBackend {
  std::shared_ptr<Metastore> store = std::make_shared<MemoryMetastore>();
};

struct SqliteBackend {
  TempDir dir;
  std::shared_ptr<Metastore> store;

  SqliteBackend() {
    auto opened = SqliteMetastore::Open({.path = dir.path() + "/catalog.db"});
    REQUIRE_OK(opened);
    store = std::move(opened).value();
  }
};

struct PostgresBackend {
  std::shared_ptr<Metastore> store;

  PostgresBackend() {
    const char* url = std::getenv("CAIRN_TEST_POSTGRES_URL");
    REQUIRE_MESSAGE(url != nullptr,
                    "CAIRN_TEST_POSTGRES_URL is not set: run ./run.sh test, or start a server "
                    "with tests/support/postgres.sh and export its URL");
    static std::atomic<int> counter{0};
    PostgresMetastore::Options options;
    options.url = url;
    options.catalog_name = "contract_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++);
    auto opened = PostgresMetastore::Open(options);
    REQUIRE_OK(opened);
    store = std::move(opened).value();
  }
};

}  // namespace
}  // namespace cairn::catalog

TYPE_TO_STRING(cairn::catalog::MemoryBackend);
TYPE_TO_STRING(cairn::catalog::SqliteBackend);
TYPE_TO_STRING(cairn::catalog::PostgresBackend);

#define CAIRN_METASTORES \
  cairn::catalog::MemoryBackend, cairn::catalog::SqliteBackend, cairn::catalog::PostgresBackend

namespace cairn::catalog {
namespace {

constexpr EntityKind kTable = EntityKind::kTable;
constexpr EntityKind kView = EntityKind::kView;

PointerSwap Create(const TableIdentifier& id, const std::string& location,
                   EntityKind kind = kTable) {
  return PointerSwap{id, kind, std::nullopt, location};
}

PointerSwap Move(const TableIdentifier& id, const Pointer& expected, const std::string& location,
                 EntityKind kind = kTable) {
  return PointerSwap{id, kind, expected, location};
}

Pointer MustLoad(Metastore& m, const TableIdentifier& id, EntityKind kind = kTable) {
  auto ptr = m.Load(id, kind);
  REQUIRE_OK(ptr);
  return *ptr;
}

std::vector<std::string> MustListNames(Metastore& m, const Namespace& ns, EntityKind kind) {
  auto names = m.ListNames(ns, kind);
  REQUIRE_OK(names);
  return *names;
}

std::vector<Namespace> MustListNamespaces(Metastore& m, const Namespace& parent) {
  auto children = m.ListNamespaces(parent);
  REQUIRE_OK(children);
  return *children;
}

// --- Namespaces

TEST_CASE_TEMPLATE("a created namespace loads with exactly its properties", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"sales"}, {{"owner", "ann"}, {"location", "file:///w/sales"}}));
  REQUIRE_OK(m.CreateNamespace({"empty"}, {}));

  auto props = m.LoadNamespace({"sales"});
  REQUIRE_OK(props);
  CHECK(*props == engine::Properties{{"owner", "ann"}, {"location", "file:///w/sales"}});
  auto none = m.LoadNamespace({"empty"});
  REQUIRE_OK(none);
  CHECK(none->empty());  // no bookkeeping rows (SQLite's "exists") leak out
}

TEST_CASE_TEMPLATE("creating a namespace twice fails and keeps the first properties", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"sales"}, {{"owner", "ann"}}));
  CHECK_CODE(m.CreateNamespace({"sales"}, {{"owner", "bob"}}), kAlreadyExists);
  auto props = m.LoadNamespace({"sales"});
  REQUIRE_OK(props);
  CHECK(*props == engine::Properties{{"owner", "ann"}});
}

TEST_CASE_TEMPLATE("loading a missing namespace fails with NoSuchNamespace", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"a"}, {}));
  CHECK_CODE(m.LoadNamespace({"missing"}), kNoSuchNamespace);
  CHECK_CODE(m.LoadNamespace({"a", "missing"}), kNoSuchNamespace);
}

TEST_CASE_TEMPLATE("listing namespaces gives direct children only, sorted", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  for (const Namespace& ns : std::vector<Namespace>{{"c"},
                                                    {"a"},
                                                    {"a", "y"},
                                                    {"a", "x"},
                                                    {"a", "x", "deep"},
                                                    {"ab"},
                                                    {"ab", "z"},
                                                    {"b"}}) {
    REQUIRE_OK(m.CreateNamespace(ns, {}));
  }

  CHECK(MustListNamespaces(m, {}) == std::vector<Namespace>{{"a"}, {"ab"}, {"b"}, {"c"}});
  // "ab" shares a prefix with "a" but is not its child.
  CHECK(MustListNamespaces(m, {"a"}) == std::vector<Namespace>{{"a", "x"}, {"a", "y"}});
  CHECK(MustListNamespaces(m, {"a", "x"}) == std::vector<Namespace>{{"a", "x", "deep"}});
  CHECK(MustListNamespaces(m, {"a", "x", "deep"}).empty());
  CHECK(MustListNamespaces(m, {"b"}).empty());
  CHECK_CODE(m.ListNamespaces({"missing"}), kNoSuchNamespace);
}

TEST_CASE_TEMPLATE("listing namespaces of an empty store gives nothing", B, CAIRN_METASTORES) {
  B b;
  CHECK(MustListNamespaces(*b.store, {}).empty());
}

TEST_CASE_TEMPLATE("updating namespace properties sets and removes keys", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"a"}, {{"k1", "1"}, {"k2", "2"}}));
  REQUIRE_OK(m.UpdateNamespaceProperties({"a"}, {{"k2", "two"}, {"k3", "3"}}, {"k1", "absent"}));
  auto props = m.LoadNamespace({"a"});
  REQUIRE_OK(props);
  CHECK(*props == engine::Properties{{"k2", "two"}, {"k3", "3"}});
  CHECK_CODE(m.UpdateNamespaceProperties({"missing"}, {{"k", "v"}}, {}), kNoSuchNamespace);
  CHECK_CODE(m.LoadNamespace({"missing"}), kNoSuchNamespace);
}

TEST_CASE_TEMPLATE("a namespace whose properties are all removed still exists", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"a"}, {{"k", "v"}}));
  // "exists" is how SQLite marks a namespace; removing it must not remove the namespace.
  REQUIRE_OK(m.UpdateNamespaceProperties({"a"}, {}, {"k", "exists"}));
  auto props = m.LoadNamespace({"a"});
  REQUIRE_OK(props);
  CHECK(props->empty());
  CHECK(MustListNamespaces(m, {}) == std::vector<Namespace>{{"a"}});
  CHECK_CODE(m.CreateNamespace({"a"}, {}), kAlreadyExists);
}

TEST_CASE_TEMPLATE("dropping a namespace removes it, and only when it is empty", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  CHECK_CODE(m.DropNamespace({"missing"}), kNoSuchNamespace);

  REQUIRE_OK(m.CreateNamespace({"a"}, {{"k", "v"}}));
  REQUIRE_OK(m.CreateNamespace({"ab"}, {}));
  REQUIRE_OK(m.CreateNamespace({"ab", "child"}, {}));
  REQUIRE_OK(m.Commit({Create({{"ab"}, "t"}, "file:///w/ab/t/m0.json")}));

  // Tables and namespaces whose names merely start with "a" do not make "a" non-empty.
  REQUIRE_OK(m.DropNamespace({"a"}));
  CHECK_CODE(m.LoadNamespace({"a"}), kNoSuchNamespace);
  CHECK_CODE(m.DropNamespace({"a"}), kNoSuchNamespace);
  CHECK(MustListNamespaces(m, {}) == std::vector<Namespace>{{"ab"}});

  // The dropped namespace can be created again, without its old properties.
  REQUIRE_OK(m.CreateNamespace({"a"}, {}));
  auto props = m.LoadNamespace({"a"});
  REQUIRE_OK(props);
  CHECK(props->empty());
}

TEST_CASE_TEMPLATE("a namespace holding a table, a view or a namespace is not dropped", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"t"}, {}));
  REQUIRE_OK(m.CreateNamespace({"v"}, {}));
  REQUIRE_OK(m.CreateNamespace({"n"}, {}));
  REQUIRE_OK(m.CreateNamespace({"n", "child"}, {}));
  REQUIRE_OK(m.Commit({Create({{"t"}, "tbl"}, "file:///w/t/tbl/m0.json")}));
  REQUIRE_OK(m.Commit({Create({{"v"}, "vw"}, "file:///w/v/vw/m0.json", kView)}));

  CHECK_CODE(m.DropNamespace({"t"}), kNamespaceNotEmpty);
  CHECK_CODE(m.DropNamespace({"v"}), kNamespaceNotEmpty);
  CHECK_CODE(m.DropNamespace({"n"}), kNamespaceNotEmpty);
  CHECK_OK(m.LoadNamespace({"t"}));
  CHECK_OK(m.LoadNamespace({"v"}));
  CHECK_OK(m.LoadNamespace({"n"}));

  // Once emptied, they drop.
  REQUIRE_OK(m.Drop({{"t"}, "tbl"}, kTable));
  REQUIRE_OK(m.Drop({{"v"}, "vw"}, kView));
  REQUIRE_OK(m.DropNamespace({"n", "child"}));
  CHECK_OK(m.DropNamespace({"t"}));
  CHECK_OK(m.DropNamespace({"v"}));
  CHECK_OK(m.DropNamespace({"n"}));
  CHECK(MustListNamespaces(m, {}).empty());
}

// --- Tables and views

TEST_CASE_TEMPLATE("a create swap makes the entry loadable", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"};
  CHECK_CODE(m.Load(t, kTable), kNoSuchTable);

  REQUIRE_OK(m.Commit({Create(t, "file:///w/db/t/m0.json")}));
  Pointer ptr = MustLoad(m, t);
  CHECK(ptr.metadata_location == "file:///w/db/t/m0.json");
  // It is a table, not a view.
  CHECK_CODE(m.Load(t, kView), kNoSuchView);
}

TEST_CASE_TEMPLATE("ListNames lists the entries of one kind, sorted", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  REQUIRE_OK(m.CreateNamespace({"db", "inner"}, {}));
  REQUIRE_OK(m.CreateNamespace({"other"}, {}));
  REQUIRE_OK(m.Commit({Create({{"db"}, "b"}, "file:///w/b"), Create({{"db"}, "c"}, "file:///w/c"),
                       Create({{"db"}, "a"}, "file:///w/a")}));
  REQUIRE_OK(m.Commit({Create({{"db"}, "v"}, "file:///w/v", kView)}));
  REQUIRE_OK(m.Commit({Create({{"db", "inner"}, "nested"}, "file:///w/n")}));
  REQUIRE_OK(m.Commit({Create({{"other"}, "elsewhere"}, "file:///w/e")}));

  CHECK(MustListNames(m, {"db"}, kTable) == std::vector<std::string>{"a", "b", "c"});
  CHECK(MustListNames(m, {"db"}, kView) == std::vector<std::string>{"v"});
  CHECK(MustListNames(m, {"db", "inner"}, kTable) == std::vector<std::string>{"nested"});
  CHECK(MustListNames(m, {"db", "inner"}, kView).empty());
  CHECK_CODE(m.ListNames({"missing"}, kTable), kNoSuchNamespace);
  CHECK_CODE(m.ListNames({"missing"}, kView), kNoSuchNamespace);
  // A view is not a table and a table is not a view.
  CHECK_CODE(m.Load({{"db"}, "v"}, kTable), kNoSuchTable);
  CHECK_CODE(m.Load({{"db"}, "a"}, kView), kNoSuchView);
}

TEST_CASE_TEMPLATE("a create in a missing namespace fails with NoSuchNamespace", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  CHECK_CODE(m.Commit({Create({{"missing"}, "t"}, "file:///w/t")}), kNoSuchNamespace);
  CHECK_CODE(m.Commit({Create({{"db", "missing"}, "t"}, "file:///w/t", kView)}),
             kNoSuchNamespace);
  CHECK_CODE(m.Load({{"missing"}, "t"}, kTable), kNoSuchTable);
  CHECK_CODE(m.Load({{"db", "missing"}, "t"}, kView), kNoSuchView);
  CHECK_CODE(m.LoadNamespace({"missing"}), kNoSuchNamespace);  // not created on the way
}

TEST_CASE_TEMPLATE("a create over an existing table or view fails with AlreadyExists", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"}, v{{"db"}, "v"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/t0")}));
  REQUIRE_OK(m.Commit({Create(v, "file:///w/v0", kView)}));
  const Pointer t_before = MustLoad(m, t), v_before = MustLoad(m, v, kView);

  CHECK_CODE(m.Commit({Create(t, "file:///w/t1")}), kAlreadyExists);
  CHECK_CODE(m.Commit({Create(t, "file:///w/t1", kView)}), kAlreadyExists);
  CHECK_CODE(m.Commit({Create(v, "file:///w/v1")}), kAlreadyExists);
  CHECK_CODE(m.Commit({Create(v, "file:///w/v1", kView)}), kAlreadyExists);

  Pointer t_after = MustLoad(m, t), v_after = MustLoad(m, v, kView);
  CHECK(t_after.metadata_location == t_before.metadata_location);
  CHECK(t_after.version == t_before.version);
  CHECK(v_after.metadata_location == v_before.metadata_location);
  CHECK(v_after.version == v_before.version);
  CHECK_CODE(m.Load(t, kView), kNoSuchView);
  CHECK_CODE(m.Load(v, kTable), kNoSuchTable);
}

TEST_CASE_TEMPLATE("a swap from the current pointer moves it and bumps the version", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/m0")}));
  const Pointer p0 = MustLoad(m, t);

  REQUIRE_OK(m.Commit({Move(t, p0, "file:///w/m1")}));
  const Pointer p1 = MustLoad(m, t);
  CHECK(p1.metadata_location == "file:///w/m1");
  CHECK(p1.version == p0.version + 1);

  REQUIRE_OK(m.Commit({Move(t, p1, "file:///w/m2")}));
  const Pointer p2 = MustLoad(m, t);
  CHECK(p2.metadata_location == "file:///w/m2");
  CHECK(p2.version == p0.version + 2);
}

TEST_CASE_TEMPLATE("a swap for a view moves the view's pointer", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier v{{"db"}, "v"};
  REQUIRE_OK(m.Commit({Create(v, "file:///w/v0", kView)}));
  const Pointer p0 = MustLoad(m, v, kView);
  REQUIRE_OK(m.Commit({Move(v, p0, "file:///w/v1", kView)}));
  const Pointer p1 = MustLoad(m, v, kView);
  CHECK(p1.metadata_location == "file:///w/v1");
  CHECK(p1.version == p0.version + 1);
}

TEST_CASE_TEMPLATE("a swap from a stale location fails and changes nothing", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/m0")}));
  const Pointer p0 = MustLoad(m, t);
  REQUIRE_OK(m.Commit({Move(t, p0, "file:///w/m1")}));
  const Pointer p1 = MustLoad(m, t);

  // The loser of a race still holds p0.
  CHECK_CODE(m.Commit({Move(t, p0, "file:///w/lost")}), kCommitFailed);
  // A made-up location with the right version is stale too.
  CHECK_CODE(m.Commit({Move(t, Pointer{"file:///w/other", p1.version}, "file:///w/lost")}),
             kCommitFailed);

  const Pointer now = MustLoad(m, t);
  CHECK(now.metadata_location == p1.metadata_location);
  CHECK(now.version == p1.version);
}

TEST_CASE_TEMPLATE("a swap from a stale version fails even when the location matches (ABA)", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/m0")}));
  const Pointer p0 = MustLoad(m, t);
  REQUIRE_OK(m.Commit({Move(t, p0, "file:///w/m1")}));
  REQUIRE_OK(m.Commit({Move(t, MustLoad(m, t), "file:///w/m0")}));  // back to m0
  const Pointer p2 = MustLoad(m, t);
  REQUIRE(p2.metadata_location == p0.metadata_location);
  REQUIRE(p2.version == p0.version + 2);

  CHECK_CODE(m.Commit({Move(t, p0, "file:///w/stale")}), kCommitFailed);
  // A version from the future is as wrong as one from the past.
  CHECK_CODE(m.Commit({Move(t, Pointer{p2.metadata_location, p2.version + 1}, "file:///w/x")}),
             kCommitFailed);
  const Pointer now = MustLoad(m, t);
  CHECK(now.metadata_location == "file:///w/m0");
  CHECK(now.version == p2.version);
}

TEST_CASE_TEMPLATE("a swap of a dropped entry or of the wrong kind fails", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"}, v{{"db"}, "v"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/t0")}));
  REQUIRE_OK(m.Commit({Create(v, "file:///w/v0", kView)}));
  const Pointer tp = MustLoad(m, t), vp = MustLoad(m, v, kView);

  // The view's exact pointer, but swapped as a table.
  CHECK_CODE(m.Commit({Move(v, vp, "file:///w/v1", kTable)}), kCommitFailed);
  CHECK(MustLoad(m, v, kView).metadata_location == "file:///w/v0");
  CHECK_CODE(m.Load(v, kTable), kNoSuchTable);

  REQUIRE_OK(m.Drop(t, kTable));
  CHECK_CODE(m.Commit({Move(t, tp, "file:///w/t1")}), kCommitFailed);
  CHECK_CODE(m.Load(t, kTable), kNoSuchTable);  // not resurrected
}

TEST_CASE_TEMPLATE("a commit with one stale swap applies none of its swaps", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t1{{"db"}, "t1"}, t2{{"db"}, "t2"}, t3{{"db"}, "t3"};
  REQUIRE_OK(m.Commit({Create(t1, "file:///w/t1-0"), Create(t2, "file:///w/t2-0")}));
  const Pointer p1 = MustLoad(m, t1);
  const Pointer p2_old = MustLoad(m, t2);
  REQUIRE_OK(m.Commit({Move(t2, p2_old, "file:///w/t2-1")}));
  const Pointer p2 = MustLoad(m, t2);

  SUBCASE("the stale swap comes last") {
    CHECK_CODE(m.Commit({Move(t1, p1, "file:///w/t1-1"), Create(t3, "file:///w/t3-0"),
                         Move(t2, p2_old, "file:///w/t2-2")}),
               kCommitFailed);
  }
  SUBCASE("the stale swap comes first") {
    CHECK_CODE(m.Commit({Move(t2, p2_old, "file:///w/t2-2"), Move(t1, p1, "file:///w/t1-1"),
                         Create(t3, "file:///w/t3-0")}),
               kCommitFailed);
  }
  SUBCASE("a create collides") {
    CHECK_CODE(m.Commit({Move(t1, p1, "file:///w/t1-1"), Move(t2, p2, "file:///w/t2-2"),
                         Create(t3, "file:///w/t3-0"), Create(t1, "file:///w/t1-x")}),
               kAlreadyExists);
  }

  const Pointer n1 = MustLoad(m, t1), n2 = MustLoad(m, t2);
  CHECK(n1.metadata_location == p1.metadata_location);
  CHECK(n1.version == p1.version);
  CHECK(n2.metadata_location == p2.metadata_location);
  CHECK(n2.version == p2.version);
  CHECK_CODE(m.Load(t3, kTable), kNoSuchTable);
  CHECK(MustListNames(m, {"db"}, kTable) == std::vector<std::string>{"t1", "t2"});
}

TEST_CASE_TEMPLATE("a commit that swaps two tables from their current pointers moves both", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t1{{"db"}, "t1"}, t2{{"db"}, "t2"};
  REQUIRE_OK(m.Commit({Create(t1, "file:///w/t1-0"), Create(t2, "file:///w/t2-0")}));
  const Pointer p1 = MustLoad(m, t1), p2 = MustLoad(m, t2);
  REQUIRE_OK(m.Commit({Move(t1, p1, "file:///w/t1-1"), Move(t2, p2, "file:///w/t2-1")}));
  CHECK(MustLoad(m, t1).metadata_location == "file:///w/t1-1");
  CHECK(MustLoad(m, t2).metadata_location == "file:///w/t2-1");
  CHECK(MustLoad(m, t1).version == p1.version + 1);
  CHECK(MustLoad(m, t2).version == p2.version + 1);
}

TEST_CASE_TEMPLATE("a commit naming one entry twice applies at most one of the two swaps", B,
                   CAIRN_METASTORES) {
  // Swaps of one commit apply one after another: the second sees the first.
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"}, fresh{{"db"}, "fresh"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/m0")}));
  const Pointer p0 = MustLoad(m, t);

  CHECK_CODE(m.Commit({Move(t, p0, "file:///w/a"), Move(t, p0, "file:///w/b")}), kCommitFailed);
  const Pointer now = MustLoad(m, t);
  CHECK(now.metadata_location == p0.metadata_location);
  CHECK(now.version == p0.version);

  CHECK_CODE(m.Commit({Create(fresh, "file:///w/f1"), Create(fresh, "file:///w/f2")}),
             kAlreadyExists);
  CHECK_CODE(m.Load(fresh, kTable), kNoSuchTable);
}

TEST_CASE_TEMPLATE("drop removes an entry of the given kind only", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"}, v{{"db"}, "v"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/t0")}));
  REQUIRE_OK(m.Commit({Create(v, "file:///w/v0", kView)}));

  CHECK_CODE(m.Drop({{"db"}, "absent"}, kTable), kNoSuchTable);
  CHECK_CODE(m.Drop({{"db"}, "absent"}, kView), kNoSuchView);
  CHECK_CODE(m.Drop({{"missing"}, "t"}, kTable), kNoSuchTable);
  CHECK_CODE(m.Drop(v, kTable), kNoSuchTable);
  CHECK_CODE(m.Drop(t, kView), kNoSuchView);
  CHECK_OK(m.Load(t, kTable));
  CHECK_OK(m.Load(v, kView));

  REQUIRE_OK(m.Drop(t, kTable));
  CHECK_CODE(m.Load(t, kTable), kNoSuchTable);
  CHECK_CODE(m.Drop(t, kTable), kNoSuchTable);
  CHECK(MustListNames(m, {"db"}, kTable).empty());
  CHECK(MustListNames(m, {"db"}, kView) == std::vector<std::string>{"v"});

  REQUIRE_OK(m.Drop(v, kView));
  CHECK_CODE(m.Load(v, kView), kNoSuchView);
}

TEST_CASE_TEMPLATE("a dropped table can be created again under the same name", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/m0")}));
  REQUIRE_OK(m.Drop(t, kTable));
  REQUIRE_OK(m.Commit({Create(t, "file:///w/again", kView)}));
  CHECK(MustLoad(m, t, kView).metadata_location == "file:///w/again");
  CHECK_CODE(m.Load(t, kTable), kNoSuchTable);
}

TEST_CASE_TEMPLATE("rename moves an entry and keeps its pointer", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  REQUIRE_OK(m.CreateNamespace({"archive"}, {}));
  const TableIdentifier from{{"db"}, "t"}, to{{"archive"}, "t_old"};
  REQUIRE_OK(m.Commit({Create(from, "file:///w/m0")}));
  REQUIRE_OK(m.Commit({Move(from, MustLoad(m, from), "file:///w/m1")}));
  const Pointer before = MustLoad(m, from);

  REQUIRE_OK(m.Rename(from, to, kTable));
  CHECK_CODE(m.Load(from, kTable), kNoSuchTable);
  const Pointer after = MustLoad(m, to);
  CHECK(after.metadata_location == before.metadata_location);
  CHECK(after.version == before.version);
  CHECK(MustListNames(m, {"db"}, kTable).empty());
  CHECK(MustListNames(m, {"archive"}, kTable) == std::vector<std::string>{"t_old"});

  // The kept pointer is still the CAS base.
  REQUIRE_OK(m.Commit({Move(to, before, "file:///w/m2")}));
  CHECK(MustLoad(m, to).version == before.version + 1);
}

TEST_CASE_TEMPLATE("rename of a view moves the view", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier v{{"db"}, "v"}, w{{"db"}, "w"};
  REQUIRE_OK(m.Commit({Create(v, "file:///w/v0", kView)}));
  CHECK_CODE(m.Rename(v, w, kTable), kNoSuchTable);  // the wrong kind is not renamed
  CHECK_OK(m.Load(v, kView));
  REQUIRE_OK(m.Rename(v, w, kView));
  CHECK(MustLoad(m, w, kView).metadata_location == "file:///w/v0");
  CHECK_CODE(m.Load(v, kView), kNoSuchView);
}

TEST_CASE_TEMPLATE("rename fails without changes when the target is taken or unreachable", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"}, other{{"db"}, "other"}, view{{"db"}, "view"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/t0"), Create(other, "file:///w/o0")}));
  REQUIRE_OK(m.Commit({Create(view, "file:///w/v0", kView)}));

  CHECK_CODE(m.Rename(t, other, kTable), kAlreadyExists);
  CHECK_CODE(m.Rename(t, view, kTable), kAlreadyExists);
  CHECK_CODE(m.Rename(t, {{"missing"}, "t"}, kTable), kNoSuchNamespace);
  CHECK_CODE(m.Rename({{"db"}, "absent"}, {{"db"}, "new"}, kTable), kNoSuchTable);
  CHECK_CODE(m.Rename({{"db"}, "absent"}, {{"db"}, "new"}, kView), kNoSuchView);

  CHECK(MustLoad(m, t).metadata_location == "file:///w/t0");
  CHECK(MustLoad(m, other).metadata_location == "file:///w/o0");
  CHECK(MustLoad(m, view, kView).metadata_location == "file:///w/v0");
  CHECK_CODE(m.Load({{"db"}, "new"}, kTable), kNoSuchTable);
  CHECK(MustListNames(m, {"db"}, kTable) == std::vector<std::string>{"other", "t"});
}

TEST_CASE_TEMPLATE("ping answers OK", B, CAIRN_METASTORES) {
  B b;
  CHECK_OK(b.store->Ping());
}

TEST_CASE_TEMPLATE("concurrent swaps on one table each win exactly once per version", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  const TableIdentifier t{{"db"}, "t"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/start")}));
  const int64_t start_version = MustLoad(m, t).version;

  constexpr int kThreads = 4, kSwapsEach = 20, kMaxAttempts = 10'000;
  std::atomic<int> wins{0}, errors{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      for (int n = 0; n < kSwapsEach; ++n) {
        bool done = false;
        for (int attempt = 0; attempt < kMaxAttempts && !done; ++attempt) {
          auto ptr = m.Load(t, kTable);
          if (!ptr.ok()) break;
          std::string next = "file:///w/" + std::to_string(i) + "-" + std::to_string(n);
          Status st = m.Commit({Move(t, *ptr, next)});
          if (st.ok()) {
            done = true;
          } else if (st.code() != Status::Code::kCommitFailed &&
                     st.code() != Status::Code::kUnavailable) {
            break;
          }
        }
        (done ? wins : errors)++;
      }
    });
  }
  for (std::thread& th : threads) th.join();

  CHECK(errors.load() == 0);
  CHECK(wins.load() == kThreads * kSwapsEach);
  CHECK(MustLoad(m, t).version == start_version + kThreads * kSwapsEach);
}

TEST_CASE_TEMPLATE("commits running together each succeed or fail on their own", B,
                   CAIRN_METASTORES) {
  // Every round, each thread moves its own table and also tries to move one shared table
  // from the same pointer: its own moves always apply, exactly one shared move per round wins
  // and the losers change nothing, however the store batches them.
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  constexpr int kThreads = 8, kRounds = 15;
  const TableIdentifier shared{{"db"}, "shared"};
  REQUIRE_OK(m.Commit({Create(shared, "file:///w/shared-start")}));
  const int64_t start_version = MustLoad(m, shared).version;
  for (int i = 0; i < kThreads; ++i) {
    REQUIRE_OK(m.Commit({Create({{"db"}, "own" + std::to_string(i)}, "file:///w/own-start")}));
  }
  std::atomic<int> own_failures{0}, shared_wins{0}, other_errors{0};
  for (int round = 0; round < kRounds; ++round) {
    const Pointer base = MustLoad(m, shared);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        const TableIdentifier own{{"db"}, "own" + std::to_string(i)};
        auto ptr = m.Load(own, kTable);
        if (!ptr.ok()) return void(++other_errors);
        std::string tag = std::to_string(round) + "-" + std::to_string(i);
        if (!m.Commit({Move(own, *ptr, "file:///w/own-" + tag)}).ok()) ++own_failures;
        Status st = m.Commit({Move(shared, base, "file:///w/shared-" + tag)});
        if (st.ok()) {
          ++shared_wins;
        } else if (st.code() != Status::Code::kCommitFailed) {
          ++other_errors;
        }
      });
    }
    for (std::thread& th : threads) th.join();
  }
  CHECK(own_failures.load() == 0);
  CHECK(other_errors.load() == 0);
  CHECK(shared_wins.load() == kRounds);
  CHECK(MustLoad(m, shared).version == start_version + kRounds);
  const Pointer end = MustLoad(m, shared);
  CHECK(end.metadata_location.rfind("file:///w/shared-" + std::to_string(kRounds - 1) + "-",
                                    0) == 0);
  for (int i = 0; i < kThreads; ++i) {
    const Pointer own = MustLoad(m, {{"db"}, "own" + std::to_string(i)});
    CHECK(own.metadata_location ==
          "file:///w/own-" + std::to_string(kRounds - 1) + "-" + std::to_string(i));
  }
}

// --- Idempotency keys

constexpr int64_t kNow = 1'000'000;
constexpr int64_t kLife = 1'800'000;
constexpr int64_t kStale = 120'000;

std::optional<IdempotencyRecord> MustClaim(Metastore& m, const std::string& key,
                                           const std::string& request,
                                           const std::string& owner = "o1", int64_t now = kNow) {
  auto claim = m.ClaimIdempotencyKey(key, request, owner, now, now + kLife, now - kStale);
  REQUIRE_OK(claim);
  return *claim;
}

TEST_CASE_TEMPLATE("a new idempotency key is claimed, then seen as pending", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  CHECK_FALSE(MustClaim(m, "k1", "POST /a").has_value());
  auto again = MustClaim(m, "k1", "POST /a", "o2", kNow + 10);
  REQUIRE(again.has_value());
  CHECK_FALSE(again->done);
  CHECK(again->request == "POST /a");
}

TEST_CASE_TEMPLATE("a finished key replays its response and stays after a release", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_FALSE(MustClaim(m, "k1", "POST /a").has_value());
  REQUIRE_OK(m.FinishIdempotencyKey({"k1", "o1", 409, "conflict body"}));
  REQUIRE_OK(m.FinishIdempotencyKey({"k1", "o1", 200, "a later answer is ignored"}));
  REQUIRE_OK(m.ReleaseIdempotencyKey("k1", "o1"));
  auto rec = MustClaim(m, "k1", "POST /a", "o2", kNow + 10);
  REQUIRE(rec.has_value());
  CHECK(rec->done);
  CHECK(rec->status == 409);
  CHECK(rec->response == "conflict body");
}

TEST_CASE_TEMPLATE("a released pending key can be claimed again", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_FALSE(MustClaim(m, "k1", "POST /a").has_value());
  REQUIRE_OK(m.ReleaseIdempotencyKey("k1", "someone else"));
  REQUIRE(MustClaim(m, "k1", "POST /a", "o2", kNow + 10).has_value());  // still held
  REQUIRE_OK(m.ReleaseIdempotencyKey("k1", "o1"));
  CHECK_FALSE(MustClaim(m, "k1", "POST /a", "o2", kNow + 20).has_value());
}

TEST_CASE_TEMPLATE("a stale pending key is taken over and an expired one forgotten", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_FALSE(MustClaim(m, "k1", "POST /a").has_value());
  CHECK_FALSE(MustClaim(m, "k1", "POST /a", "o2", kNow + kStale + 1).has_value());
  // The first owner lost the key: what it records is dropped.
  REQUIRE_OK(m.FinishIdempotencyKey({"k1", "o1", 200, "from the paused original"}));
  REQUIRE(MustClaim(m, "k1", "POST /a", "o3", kNow + kStale + 2).has_value());
  CHECK_FALSE(MustClaim(m, "k1", "POST /a", "o3", kNow + kStale + 3)->done);
  REQUIRE_FALSE(MustClaim(m, "k2", "POST /b").has_value());
  REQUIRE_OK(m.FinishIdempotencyKey({"k2", "o1", 200, "done"}));
  CHECK_FALSE(MustClaim(m, "k2", "POST /b", "o2", kNow + kLife + 1).has_value());
}

TEST_CASE_TEMPLATE("a commit records its key's response in the same transaction", B,
                   CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  TableIdentifier t{{"db"}, "t"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/m0")}));
  Pointer p0 = MustLoad(m, t);
  REQUIRE_FALSE(MustClaim(m, "k1", "POST /t").has_value());
  IdempotencyFinish lost{"k1", "o1", 200, "never"};
  Pointer stale{"file:///w/other", p0.version};
  CHECK_CODE(m.Commit({Move(t, stale, "file:///w/m1")}, &lost), kCommitFailed);
  auto pending = MustClaim(m, "k1", "POST /t", "o2", kNow + 10);
  REQUIRE(pending.has_value());
  CHECK_FALSE(pending->done);
  IdempotencyFinish won{"k1", "o1", 200, "moved to m1"};
  REQUIRE_OK(m.Commit({Move(t, p0, "file:///w/m1")}, &won));
  auto done = MustClaim(m, "k1", "POST /t", "o2", kNow + 20);
  REQUIRE(done.has_value());
  CHECK(done->done);
  CHECK(done->response == "moved to m1");
}

TEST_CASE_TEMPLATE("a commit whose key a retry took over applies nothing", B, CAIRN_METASTORES) {
  B b;
  Metastore& m = *b.store;
  REQUIRE_OK(m.CreateNamespace({"db"}, {}));
  TableIdentifier t{{"db"}, "t"};
  REQUIRE_OK(m.Commit({Create(t, "file:///w/m0")}));
  Pointer p0 = MustLoad(m, t);
  REQUIRE_FALSE(MustClaim(m, "k1", "POST /t").has_value());
  REQUIRE_FALSE(MustClaim(m, "k1", "POST /t", "retry", kNow + kStale + 1).has_value());
  IdempotencyFinish paused{"k1", "o1", 200, "late"};
  CHECK_CODE(m.Commit({Move(t, p0, "file:///w/m1")}, &paused), kCommitFailed);
  CHECK(MustLoad(m, t).metadata_location == "file:///w/m0");
}

}  // namespace
}  // namespace cairn::catalog
