// Catalog's table and namespace operations around the commit: create, drop (with purge),
// register, and paged listings.

#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "tests/catalog/catalog_fixture.h"

namespace cairn::testing {
namespace {

const TableIdentifier kT{{"db"}, "t"};

struct Fixture {
  MemoryEnv env;
  Catalog catalog{env.Options()};

  Fixture() { REQUIRE_OK(catalog.CreateNamespace({"db"}, {})); }

  // Every file whose location starts with `prefix`.
  std::vector<std::string> FilesUnder(const std::string& prefix) {
    auto files = env.files->List(prefix);
    REQUIRE_OK(files);
    return *files;
  }
  void Put(const std::string& location, const std::string& content = "data") {
    REQUIRE_OK(env.files->WriteNew(location, content));
  }
};

// --- Create

TEST_CASE("a created table lives under its namespace in the warehouse") {
  Fixture f;
  const LoadedTable t = MustCreateTable(f.catalog, {"db"}, "t");
  const TableMetadata& m = *t.metadata->metadata;
  CHECK(m.location == "file:///warehouse/db/t");
  CHECK(t.metadata_location.rfind("file:///warehouse/db/t/metadata/00000-", 0) == 0);
  CHECK(t.metadata_location.ends_with(".metadata.json"));
  CHECK(FileExists(*f.env.files, t.metadata_location));
  CHECK(m.last_updated_ms == kStartMillis);  // the injected clock
  CHECK_FALSE(m.current_snapshot_id.has_value());
}

TEST_CASE("a table is created under its namespace's location property") {
  Fixture f;
  REQUIRE_OK(f.catalog.CreateNamespace({"placed"}, {{"location", "file:///warehouse/elsewhere"}}));
  const LoadedTable t = MustCreateTable(f.catalog, {"placed"}, "t");
  CHECK(t.metadata->metadata->location == "file:///warehouse/elsewhere/t");
}

TEST_CASE("a create that cannot happen writes nothing") {
  Fixture f;
  MustCreateTable(f.catalog, {"db"}, "t");
  REQUIRE_OK(f.env.store->Commit(
      {catalog::PointerSwap{{{"db"}, "v"}, EntityKind::kView, std::nullopt, "file:///x"}}));
  const size_t files_before = f.env.files->size();

  catalog::CreateTableRequest outside = SimpleTable("o");
  outside.location = "file:///elsewhere/o";
  catalog::CreateTableRequest escaping = SimpleTable("e");
  escaping.location = "file:///warehouse/../elsewhere/e";
  catalog::CreateTableRequest sibling = SimpleTable("s");
  sibling.location = "file:///warehouse2/s";

  CHECK_CODE(f.catalog.CreateTable({"db"}, SimpleTable("t")), kAlreadyExists);
  CHECK_CODE(f.catalog.CreateTable({"db"}, SimpleTable("v")), kAlreadyExists);
  CHECK_CODE(f.catalog.CreateTable({"missing"}, SimpleTable("t")), kNoSuchNamespace);
  CHECK_CODE(f.catalog.CreateTable({"db"}, outside), kInvalidArgument);
  CHECK_CODE(f.catalog.CreateTable({"db"}, escaping), kInvalidArgument);
  CHECK_CODE(f.catalog.CreateTable({"db"}, sibling), kInvalidArgument);
  CHECK_CODE(f.catalog.CreateTable({"db"}, SimpleTable("")), kInvalidArgument);
  CHECK_CODE(f.catalog.CreateTable({"db"}, SimpleTable("a/b")), kInvalidArgument);
  CHECK(f.env.files->size() == files_before);
}

TEST_CASE("a table whose metadata file is gone or corrupt does not load") {
  Fixture f;
  const LoadedTable t = MustCreateTable(f.catalog, {"db"}, "t");
  const std::string corrupt = "file:///warehouse/db/t/metadata/00001-corrupt.metadata.json";
  const std::string gone = "file:///warehouse/db/t/metadata/00001-gone.metadata.json";
  f.Put(corrupt, "{\"format-version\": 2, trailing garbage");
  auto ptr = f.env.store->Load(kT, EntityKind::kTable);
  REQUIRE_OK(ptr);
  SUBCASE("corrupt") {
    REQUIRE_OK(f.env.store->Commit({catalog::PointerSwap{kT, EntityKind::kTable, *ptr, corrupt}}));
  }
  SUBCASE("gone") {
    REQUIRE_OK(f.env.store->Commit({catalog::PointerSwap{kT, EntityKind::kTable, *ptr, gone}}));
  }
  auto loaded = f.catalog.LoadTable(kT);
  CHECK_FALSE(loaded.ok());
  CHECK(loaded.status().code() != Status::Code::kNoSuchTable);  // the table does exist
  // And a commit on it fails before writing anything.
  const size_t files_before = f.env.files->size();
  CHECK_FALSE(f.catalog.CommitTable(Append(kT, *t.metadata->metadata, 101)).ok());
  CHECK(f.env.files->size() == files_before);
}

// --- Drop

TEST_CASE("dropping a table with purge deletes its files and nothing else") {
  Fixture f;
  const LoadedTable t = MustCreateTable(f.catalog, {"db"}, "t");
  MustCreateTable(f.catalog, {"db"}, "t2");  // its location shares the prefix ".../db/t"
  auto committed = f.catalog.CommitTable(Append(kT, *t.metadata->metadata, 101));
  REQUIRE_OK(committed);
  const std::string manifest_list = ManifestList("file:///warehouse/db/t", 101);
  f.Put(manifest_list);
  f.Put("file:///warehouse/db/t2/data/part-0.parquet");
  f.Put("file:///warehouse/db/t.txt");
  const std::vector<std::string> t2_files = f.FilesUnder("file:///warehouse/db/t2");
  REQUIRE(t2_files.size() == 2);

  REQUIRE_OK(f.catalog.DropTable(kT, /*purge=*/true));
  CHECK_CODE(f.catalog.LoadTable(kT), kNoSuchTable);
  // The current and the previous metadata file, and what the snapshots reference.
  CHECK_FALSE(FileExists(*f.env.files, committed->metadata_location));
  CHECK_FALSE(FileExists(*f.env.files, t.metadata_location));
  CHECK_FALSE(FileExists(*f.env.files, manifest_list));
  // Neighbours sharing the name's prefix are untouched.
  CHECK(f.FilesUnder("file:///warehouse/db/t2") == t2_files);
  CHECK(FileExists(*f.env.files, "file:///warehouse/db/t.txt"));
  CHECK_OK(f.catalog.LoadTable({{"db"}, "t2"}));
}

TEST_CASE("dropping a table without purge keeps its files") {
  Fixture f;
  MustCreateTable(f.catalog, {"db"}, "t");
  f.Put("file:///warehouse/db/t/data/part-0.parquet");
  const size_t files_before = f.env.files->size();
  REQUIRE_OK(f.catalog.DropTable(kT, /*purge=*/false));
  CHECK_CODE(f.catalog.LoadTable(kT), kNoSuchTable);
  CHECK(f.env.files->size() == files_before);
}

TEST_CASE("dropping a missing table is NoSuchTable") {
  Fixture f;
  CHECK_CODE(f.catalog.DropTable(kT, true), kNoSuchTable);
  CHECK_CODE(f.catalog.DropTable({{"missing"}, "t"}, false), kNoSuchTable);
}

// --- Register

TEST_CASE("registering an existing metadata file adopts the table as it was") {
  Fixture f;
  const LoadedTable t = MustCreateTable(f.catalog, {"db"}, "t");
  auto committed = f.catalog.CommitTable(Append(kT, *t.metadata->metadata, 101));
  REQUIRE_OK(committed);
  REQUIRE_OK(f.catalog.DropTable(kT, /*purge=*/false));

  const TableIdentifier restored{{"db"}, "restored"};
  auto registered = f.catalog.RegisterTable(restored, committed->metadata_location, false);
  REQUIRE_OK(registered);
  const LoadedTable loaded = MustLoadTable(f.catalog, restored);
  CHECK(loaded.metadata_location == committed->metadata_location);
  CHECK(loaded.metadata->metadata->table_uuid == t.metadata->metadata->table_uuid);
  CHECK(*loaded.metadata->metadata->current_snapshot_id == 101);

  // It commits like any other table.
  CHECK_OK(f.catalog.CommitTable(Append(restored, *loaded.metadata->metadata, 102)));
  CHECK(*MustLoadTable(f.catalog, restored).metadata->metadata->current_snapshot_id == 102);
}

TEST_CASE("registering over an existing table needs overwrite") {
  Fixture f;
  const LoadedTable t = MustCreateTable(f.catalog, {"db"}, "t");
  const LoadedTable other = MustCreateTable(f.catalog, {"db"}, "other");
  const auto before = f.env.store->Load(kT, EntityKind::kTable);
  REQUIRE_OK(before);

  CHECK_CODE(f.catalog.RegisterTable(kT, other.metadata_location, false), kAlreadyExists);
  CHECK(MustLoadTable(f.catalog, kT).metadata_location == t.metadata_location);

  REQUIRE_OK(f.catalog.RegisterTable(kT, other.metadata_location, true));
  CHECK(MustLoadTable(f.catalog, kT).metadata_location == other.metadata_location);
  const auto after = f.env.store->Load(kT, EntityKind::kTable);
  REQUIRE_OK(after);
  CHECK(after->version == before->version + 1);
}

TEST_CASE("registering a file outside the warehouse is InvalidArgument") {
  Fixture f;
  const LoadedTable t = MustCreateTable(f.catalog, {"db"}, "t");
  const std::string json = t.metadata->json;
  std::string location;
  SUBCASE("another root") { location = "file:///elsewhere/m.metadata.json"; }
  SUBCASE("a sibling sharing the prefix") { location = "file:///warehouse2/m.metadata.json"; }
  SUBCASE("climbing out with ..") { location = "file:///warehouse/../elsewhere/m.metadata.json"; }
  SUBCASE("another scheme") { location = "s3://bucket/warehouse/m.metadata.json"; }
  f.Put(location, json);  // a valid document: only its place is wrong

  const TableIdentifier id{{"db"}, "registered"};
  CHECK_CODE(f.catalog.RegisterTable(id, location, false), kInvalidArgument);
  CHECK_CODE(f.catalog.LoadTable(id), kNoSuchTable);
}

TEST_CASE("registering a missing or invalid metadata file is InvalidArgument") {
  Fixture f;
  f.Put("file:///warehouse/db/bad/metadata/00000-x.metadata.json", "{not json");
  const TableIdentifier id{{"db"}, "registered"};
  CHECK_CODE(f.catalog.RegisterTable(id, "file:///warehouse/db/none.metadata.json", false),
             kInvalidArgument);
  CHECK_CODE(
      f.catalog.RegisterTable(id, "file:///warehouse/db/bad/metadata/00000-x.metadata.json", false),
      kInvalidArgument);
  CHECK_CODE(f.catalog.LoadTable(id), kNoSuchTable);
}

TEST_CASE("registering a metadata file whose table location is outside the warehouse fails") {
  // Otherwise later commits would write metadata files wherever the document points.
  Fixture f;
  const LoadedTable t = MustCreateTable(f.catalog, {"db"}, "t");
  TableMetadata foreign = *t.metadata->metadata;
  foreign.location = "file:///elsewhere/t";
  const std::string location = "file:///warehouse/db/foreign/metadata/00000-f.metadata.json";
  f.Put(location, foreign.ToJson().dump());

  const TableIdentifier id{{"db"}, "foreign"};
  CHECK_CODE(f.catalog.RegisterTable(id, location, false), kInvalidArgument);
  CHECK_CODE(f.catalog.LoadTable(id), kNoSuchTable);
}

// --- Pagination

template <typename T, typename ListFn>
std::vector<T> WalkPages(ListFn list, int page_size, int* pages) {
  std::vector<T> all;
  catalog::PageRequest request{"", page_size};
  *pages = 0;
  for (int guard = 0; guard < 100; ++guard) {
    auto page = list(request);
    REQUIRE_OK(page);
    ++*pages;
    CHECK(page->items.size() <= static_cast<size_t>(page_size));
    all.insert(all.end(), page->items.begin(), page->items.end());
    if (!page->next_token) return all;
    CHECK_FALSE(page->items.empty());
    request.token = *page->next_token;
  }
  FAIL("pagination did not end");
  return all;
}

TEST_CASE("listing tables page by page walks every table once and ends without a token") {
  Fixture f;
  const std::vector<std::string> names = {"a", "b", "c", "d", "e"};
  for (const char* name : {"d", "b", "e", "a", "c"}) MustCreateTable(f.catalog, {"db"}, name);
  auto list = [&](const catalog::PageRequest& r) { return f.catalog.ListTables({"db"}, r); };

  int pages = 0;
  CHECK(WalkPages<std::string>(list, 2, &pages) == names);
  CHECK(pages == 3);

  // An exact multiple of the page size ends on a full page, not an empty one.
  REQUIRE_OK(f.catalog.DropTable({{"db"}, "e"}, false));
  CHECK(WalkPages<std::string>(list, 2, &pages) ==
        std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(pages == 2);

  auto everything = f.catalog.ListTables({"db"}, {});
  REQUIRE_OK(everything);
  CHECK(everything->items == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK_FALSE(everything->next_token.has_value());
}

TEST_CASE("listing namespaces page by page walks every namespace once") {
  Fixture f;  // holds "db"
  for (const char* name : {"e", "b", "a", "c"}) REQUIRE_OK(f.catalog.CreateNamespace({name}, {}));
  for (const char* name : {"z", "x", "y"}) REQUIRE_OK(f.catalog.CreateNamespace({"a", name}, {}));
  REQUIRE_OK(f.catalog.CreateNamespace({"a", "x", "deep"}, {}));

  int pages = 0;
  auto top = [&](const catalog::PageRequest& r) { return f.catalog.ListNamespaces({}, r); };
  CHECK(WalkPages<Namespace>(top, 2, &pages) ==
        std::vector<Namespace>{{"a"}, {"b"}, {"c"}, {"db"}, {"e"}});
  CHECK(pages == 3);

  auto children = [&](const catalog::PageRequest& r) {
    return f.catalog.ListNamespaces({"a"}, r);
  };
  CHECK(WalkPages<Namespace>(children, 2, &pages) ==
        std::vector<Namespace>{{"a", "x"}, {"a", "y"}, {"a", "z"}});
  CHECK(pages == 2);
}

TEST_CASE("a page token past the last item gives an empty final page") {
  Fixture f;
  MustCreateTable(f.catalog, {"db"}, "a");
  auto page = f.catalog.ListTables({"db"}, {"zzz", 2});
  REQUIRE_OK(page);
  CHECK(page->items.empty());
  CHECK_FALSE(page->next_token.has_value());
}

}  // namespace
}  // namespace cairn::testing
