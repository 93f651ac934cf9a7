// Catalog's commit protocol (DESIGN.md "The server commit"): requirements, updates, the
// durable write before the swap, server-side retries of a lost CAS, reconciling unknown
// outcomes, multi-table transactions and creates through a commit.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "engine/faulty_file_io.h"
#include "tests/catalog/catalog_fixture.h"

namespace cairn::testing {
namespace {

using engine::FaultyFileIO;

const TableIdentifier kT{{"db"}, "t"};

// A catalog over a fresh MemoryEnv (optionally through a double) holding db.t.
struct Fixture {
  MemoryEnv env;
  std::shared_ptr<ScriptedMetastore> scripted = std::make_shared<ScriptedMetastore>(env.store);
  Catalog catalog{env.Options(scripted)};
  // Another server sharing the metastore and the files: the "concurrent writer".
  Catalog other{env.Options()};

  Fixture() {
    REQUIRE_OK(catalog.CreateNamespace({"db"}, {}));
    MustCreateTable(catalog, {"db"}, "t");
  }
  // Commits that reached the metastore since the fixture was built (the create aside).
  size_t Swaps() { return scripted->commits().size() - 1; }
  LoadedTable Load() { return MustLoadTable(catalog, kT); }
  TableMetadata Current() { return *Load().metadata->metadata; }
  Pointer PointerOf(const TableIdentifier& id) {
    auto ptr = env.store->Load(id, EntityKind::kTable);
    REQUIRE_OK(ptr);
    return *ptr;
  }
};

TEST_CASE("an append commit advances the table and a fresh load sees it") {
  Fixture f;
  const LoadedTable before = f.Load();
  const Pointer ptr_before = f.PointerOf(kT);
  REQUIRE(f.env.files->size() == 1);
  CHECK(before.metadata_location.rfind("file:///warehouse/db/t/metadata/00000-", 0) == 0);

  auto committed = f.catalog.CommitTable(Append(kT, *before.metadata->metadata, 101));
  REQUIRE_OK(committed);
  CHECK(committed->metadata_location != before.metadata_location);
  CHECK(committed->metadata_location.rfind("file:///warehouse/db/t/metadata/00001-", 0) == 0);
  CHECK(f.env.files->size() == 2);
  const Pointer ptr_after = f.PointerOf(kT);
  CHECK(ptr_after.metadata_location == committed->metadata_location);
  CHECK(ptr_after.version == ptr_before.version + 1);

  // A server with an empty cache reads the same state back from the file.
  Catalog fresh(f.env.Options());
  const LoadedTable loaded = MustLoadTable(fresh, kT);
  const TableMetadata& m = *loaded.metadata->metadata;
  CHECK(loaded.metadata_location == committed->metadata_location);
  CHECK(m.table_uuid == before.metadata->metadata->table_uuid);
  REQUIRE(m.current_snapshot_id.has_value());
  CHECK(*m.current_snapshot_id == 101);
  CHECK(m.snapshots.size() == 1);
  CHECK(m.last_sequence_number == 1);
  REQUIRE(m.refs.count("main") == 1);
  CHECK(m.refs.at("main").snapshot_id == 101);
  REQUIRE(m.metadata_log.size() == 1);
  CHECK(m.metadata_log[0].metadata_file == before.metadata_location);
  CHECK(loaded.metadata->json == committed->metadata->json);

  // The next append builds on it.
  auto second = f.catalog.CommitTable(Append(kT, m, 102));
  REQUIRE_OK(second);
  const TableMetadata& m2 = f.Current();
  CHECK(*m2.current_snapshot_id == 102);
  REQUIRE(m2.FindSnapshot(102) != nullptr);
  CHECK(m2.FindSnapshot(102)->parent_snapshot_id == std::optional<int64_t>(101));
  CHECK(f.env.files->size() == 3);
}

TEST_CASE("a failed requirement is a CommitFailed and writes nothing") {
  Fixture f;
  REQUIRE_OK(f.catalog.CommitTable(Append(kT, f.Current(), 101)));
  const TableMetadata base = f.Current();
  const Pointer ptr_before = f.PointerOf(kT);
  const size_t files_before = f.env.files->size();

  TableChange change = Append(kT, base, 102);
  SUBCASE("another table's uuid") { change.requirements[0] = AssertUuid("not-the-uuid"); }
  SUBCASE("main moved") { change.requirements[1] = AssertRef("main", 999); }
  SUBCASE("main expected absent") { change.requirements[1] = AssertRef("main", std::nullopt); }
  SUBCASE("assert-create on an existing table") { change.requirements = {AssertCreate()}; }

  auto result = f.catalog.CommitTable(change);
  CHECK_CODE(result, kCommitFailed);
  CHECK(result.status().message().rfind("Requirement failed:", 0) == 0);
  CHECK(f.env.files->size() == files_before);
  CHECK(f.PointerOf(kT).metadata_location == ptr_before.metadata_location);
  CHECK(f.PointerOf(kT).version == ptr_before.version);
  CHECK(f.Swaps() == 1);  // the first append only: this one never reached the swap
}

TEST_CASE("assert-create on an existing table fails with 'table already exists'") {
  Fixture f;
  const size_t files_before = f.env.files->size();
  auto result = f.catalog.CommitTable(
      Change(kT, {AssertCreate()}, {SetProperties({{"k", "v"}})}));
  CHECK_CODE(result, kCommitFailed);
  CHECK(result.status().message() == "Requirement failed: table already exists");
  CHECK(f.env.files->size() == files_before);
  CHECK(f.Current().properties.count("k") == 0);
}

TEST_CASE("an update that cannot apply is InvalidArgument and writes nothing") {
  Fixture f;
  REQUIRE_OK(f.catalog.CommitTable(Append(kT, f.Current(), 101)));
  const Pointer ptr_before = f.PointerOf(kT);
  const size_t files_before = f.env.files->size();
  const std::string uuid = f.Current().table_uuid;

  std::vector<TableUpdate> updates;
  SUBCASE("set-current-schema to an unknown id") { updates = {SetCurrentSchema(7)}; }
  SUBCASE("set-snapshot-ref to an unknown snapshot") { updates = {SetRef("main", 12345)}; }
  SUBCASE("add-snapshot with an id the table has") {
    updates = {AddSnapshot(101, 101, 2, kStartMillis)};
  }
  SUBCASE("a valid update followed by an invalid one") {
    updates = {SetProperties({{"k", "v"}}), SetCurrentSchema(7)};
  }

  auto result = f.catalog.CommitTable(Change(kT, {AssertUuid(uuid)}, updates));
  CHECK_CODE(result, kInvalidArgument);
  CHECK(f.env.files->size() == files_before);
  CHECK(f.PointerOf(kT).metadata_location == ptr_before.metadata_location);
  CHECK(f.PointerOf(kT).version == ptr_before.version);
  CHECK(f.Current().properties.count("k") == 0);
}

TEST_CASE("a commit that changes nothing writes no file and keeps the pointer") {
  Fixture f;
  const LoadedTable before = f.Load();
  const size_t files_before = f.env.files->size();
  auto result = f.catalog.CommitTable(
      Change(kT, {AssertUuid(before.metadata->metadata->table_uuid)}, {SetCurrentSchema(0)}));
  REQUIRE_OK(result);
  CHECK(result->metadata_location == before.metadata_location);
  CHECK(f.env.files->size() == files_before);
  CHECK(f.Swaps() == 0);
}

TEST_CASE("a commit to a missing table is NoSuchTable") {
  Fixture f;
  CHECK_CODE(f.catalog.CommitTable(Change({{"db"}, "absent"}, {}, {SetProperties({{"k", "v"}})})),
             kNoSuchTable);
  CHECK_CODE(
      f.catalog.CommitTable(Change({{"missing"}, "t"}, {}, {SetProperties({{"k", "v"}})})),
      kNoSuchTable);
  CHECK(f.env.files->size() == 1);
}

TEST_CASE("a commit whose metadata file cannot be written fails and leaves the table as it was") {
  MemoryEnv env;
  std::atomic<bool> fail_writes{false};
  auto faulty = std::make_shared<FaultyFileIO>(
      env.files, [&](FaultyFileIO::Op op, const std::string&) {
        return op == FaultyFileIO::Op::kWriteNew && fail_writes.load()
                   ? Status::IOError("injected: disk full")
                   : Status::OK();
      });
  Catalog catalog(env.Options(nullptr, faulty));
  REQUIRE_OK(catalog.CreateNamespace({"db"}, {}));
  const LoadedTable before = MustCreateTable(catalog, {"db"}, "t");
  const auto ptr_before = env.store->Load(kT, EntityKind::kTable);
  REQUIRE_OK(ptr_before);
  const size_t files_before = env.files->size();

  fail_writes = true;
  auto result = catalog.CommitTable(Append(kT, *before.metadata->metadata, 101));
  CHECK_FALSE(result.ok());
  CHECK_CODE(result, kIOError);
  CHECK(result.status().code() != Status::Code::kCommitStateUnknown);
  CHECK(env.files->size() == files_before);
  auto ptr_after = env.store->Load(kT, EntityKind::kTable);
  REQUIRE_OK(ptr_after);
  CHECK(ptr_after->metadata_location == ptr_before->metadata_location);
  CHECK(ptr_after->version == ptr_before->version);

  // The table is not wedged: once the store works again, the same commit goes through.
  fail_writes = false;
  CHECK_OK(catalog.CommitTable(Append(kT, *before.metadata->metadata, 101)));
  CHECK(*MustLoadTable(catalog, kT).metadata->metadata->current_snapshot_id == 101);
}

TEST_CASE("a lost CAS whose requirements still hold is retried and succeeds") {
  Fixture f;
  const TableMetadata base = f.Current();
  std::string lost_file;
  std::string concurrent_file;

  SUBCASE("another writer committed in between") {
    f.scripted->ScriptCommit([&](const std::vector<PointerSwap>& swaps, Metastore& inner) {
      lost_file = swaps.at(0).new_location;
      // A concurrent property change lands first; it does not touch main.
      auto concurrent = f.other.CommitTable(
          Change(kT, {AssertUuid(base.table_uuid)}, {SetProperties({{"owner", "ann"}})}));
      REQUIRE_OK(concurrent);
      concurrent_file = concurrent->metadata_location;
      return inner.Commit(swaps);  // loses: the pointer moved
    });
  }
  SUBCASE("the metastore reported a lost race without a visible winner") {
    f.scripted->ScriptCommit([&](const std::vector<PointerSwap>& swaps, Metastore&) {
      lost_file = swaps.at(0).new_location;
      return Status::CommitFailed("Commit failed: db.t changed concurrently");
    });
  }

  const size_t files_before = f.env.files->size();
  auto result = f.catalog.CommitTable(Append(kT, base, 101));
  REQUIRE_OK(result);

  const auto commits = f.scripted->commits();
  REQUIRE(f.Swaps() == 2);
  CHECK(commits.back().at(0).new_location == result->metadata_location);
  CHECK(lost_file != result->metadata_location);
  CHECK_FALSE(FileExists(*f.env.files, lost_file));  // the lost attempt's file is deleted
  CHECK(FileExists(*f.env.files, result->metadata_location));
  CHECK(f.env.files->size() == files_before + 1 + (concurrent_file.empty() ? 0 : 1));

  const TableMetadata& now = f.Current();
  CHECK(f.PointerOf(kT).metadata_location == result->metadata_location);
  CHECK(*now.current_snapshot_id == 101);
  if (!concurrent_file.empty()) {
    // Rebased onto the winner: both changes are in, the winner's file is in the log.
    CHECK(now.properties.count("owner") == 1);
    REQUIRE_FALSE(now.metadata_log.empty());
    CHECK(now.metadata_log.back().metadata_file == concurrent_file);
  }
}

TEST_CASE("a lost CAS whose requirements no longer hold is a CommitFailed with its file deleted") {
  Fixture f;
  const TableMetadata base = f.Current();
  std::string lost_file;
  f.scripted->ScriptCommit([&](const std::vector<PointerSwap>& swaps, Metastore& inner) {
    lost_file = swaps.at(0).new_location;
    REQUIRE_OK(f.other.CommitTable(Append(kT, base, 500)));  // someone else appends first
    return inner.Commit(swaps);
  });
  const size_t files_before = f.env.files->size();

  auto result = f.catalog.CommitTable(Append(kT, base, 101));
  CHECK_CODE(result, kCommitFailed);
  CHECK(f.Swaps() == 1);  // the retry stopped at the requirement
  CHECK_FALSE(FileExists(*f.env.files, lost_file));
  CHECK(f.env.files->size() == files_before + 1);  // the winner's file only
  CHECK(*f.Current().current_snapshot_id == 500);
  CHECK(f.Current().FindSnapshot(101) == nullptr);
}

TEST_CASE("a commit that keeps losing the CAS gives up with CommitFailed after its attempts") {
  MemoryEnv env;
  auto scripted = std::make_shared<ScriptedMetastore>(env.store);
  CatalogOptions options = env.Options(scripted);
  options.max_commit_attempts = 3;
  Catalog catalog(options);
  REQUIRE_OK(catalog.CreateNamespace({"db"}, {}));
  const LoadedTable before = MustCreateTable(catalog, {"db"}, "t");
  for (int i = 0; i < 5; ++i) {
    scripted->ScriptCommit([](const std::vector<PointerSwap>&, Metastore&) {
      return Status::CommitFailed("Commit failed: db.t changed concurrently");
    });
  }
  const size_t commits_before = scripted->commits().size();
  const size_t files_before = env.files->size();

  auto result = catalog.CommitTable(Append(kT, *before.metadata->metadata, 101));
  CHECK_CODE(result, kCommitFailed);
  CHECK(scripted->commits().size() - commits_before == 3);
  CHECK(env.files->size() == files_before);  // every attempt's file is gone
  CHECK(MustLoadTable(catalog, kT).metadata_location == before.metadata_location);
}

TEST_CASE("an unknown outcome whose swap applied is reconciled to success") {
  Fixture f;
  const TableMetadata base = f.Current();
  bool concurrent = false;
  SUBCASE("our location is current") {}
  SUBCASE("another commit landed on top of ours") { concurrent = true; }
  f.scripted->ScriptCommit([&](const std::vector<PointerSwap>& swaps, Metastore& inner) {
    REQUIRE_OK(inner.Commit(swaps));
    if (concurrent) {
      REQUIRE_OK(f.other.CommitTable(
          Change(kT, {AssertUuid(base.table_uuid)}, {SetProperties({{"later", "yes"}})})));
    }
    return Status::CommitStateUnknown("connection lost after COMMIT was sent");
  });
  const size_t files_before = f.env.files->size();

  auto result = f.catalog.CommitTable(Append(kT, base, 101));
  REQUIRE_OK(result);
  CHECK(f.Swaps() == 1);  // reconciled, not retried
  CHECK(FileExists(*f.env.files, result->metadata_location));
  CHECK(f.env.files->size() == files_before + (concurrent ? 2 : 1));
  const TableMetadata& now = f.Current();
  CHECK(*now.current_snapshot_id == 101);
  CHECK(now.snapshots.size() == 1);  // applied once
  if (!concurrent) CHECK(f.PointerOf(kT).metadata_location == result->metadata_location);
}

TEST_CASE("an unknown outcome whose swap did not apply is reported as such and keeps the file") {
  Fixture f;
  const TableMetadata base = f.Current();
  const Pointer ptr_before = f.PointerOf(kT);
  std::string written;
  f.scripted->ScriptCommit([&](const std::vector<PointerSwap>& swaps, Metastore&) {
    written = swaps.at(0).new_location;
    return Status::CommitStateUnknown("timed out waiting for COMMIT");
  });
  const size_t files_before = f.env.files->size();

  auto result = f.catalog.CommitTable(Append(kT, base, 101));
  CHECK_CODE(result, kCommitStateUnknown);  // never CommitFailed: it may have applied
  CHECK(f.Swaps() == 1);  // and never retried
  CHECK(FileExists(*f.env.files, written));
  CHECK(f.env.files->size() == files_before + 1);
  CHECK(f.PointerOf(kT).metadata_location == ptr_before.metadata_location);
  CHECK(f.PointerOf(kT).version == ptr_before.version);
}

TEST_CASE("an unknown outcome of a create is reconciled against the metastore") {
  MemoryEnv env;
  auto scripted = std::make_shared<ScriptedMetastore>(env.store);
  Catalog catalog(env.Options(scripted));
  REQUIRE_OK(catalog.CreateNamespace({"db"}, {}));
  bool applied = false;
  SUBCASE("it applied") { applied = true; }
  SUBCASE("it did not apply") {}
  scripted->ScriptCommit([&](const std::vector<PointerSwap>& swaps, Metastore& inner) {
    if (applied) REQUIRE_OK(inner.Commit(swaps));
    return Status::CommitStateUnknown("connection reset");
  });

  auto created = catalog.CreateTable({"db"}, SimpleTable("t"));
  REQUIRE(scripted->commits().size() == 1);
  const std::string written = scripted->commits()[0].at(0).new_location;
  CHECK(FileExists(*env.files, written));  // kept either way
  if (applied) {
    REQUIRE_OK(created);
    CHECK(created->metadata_location == written);
    CHECK(MustLoadTable(catalog, kT).metadata_location == written);
  } else {
    CHECK_CODE(created, kCommitStateUnknown);
    CHECK_CODE(catalog.LoadTable(kT), kNoSuchTable);
  }
}

// --- Multi-table transactions

struct TwoTables : Fixture {
  const TableIdentifier kU{{"db"}, "u"};
  TwoTables() { MustCreateTable(catalog, {"db"}, "u"); }
  TableMetadata CurrentU() { return *MustLoadTable(catalog, kU).metadata->metadata; }
};

TEST_CASE("a transaction changes every table together") {
  TwoTables f;
  const Pointer t_before = f.PointerOf(kT), u_before = f.PointerOf(f.kU);
  const size_t files_before = f.env.files->size();

  REQUIRE_OK(f.catalog.CommitTransaction(
      {Append(kT, f.Current(), 101),
       Change(f.kU, {AssertUuid(f.CurrentU().table_uuid)}, {SetProperties({{"k", "v"}})})}));

  CHECK(f.scripted->commits().back().size() == 2);  // one metastore commit for both
  CHECK(f.PointerOf(kT).version == t_before.version + 1);
  CHECK(f.PointerOf(f.kU).version == u_before.version + 1);
  CHECK(*f.Current().current_snapshot_id == 101);
  CHECK(f.CurrentU().properties.at("k") == "v");
  CHECK(f.env.files->size() == files_before + 2);
}

TEST_CASE("a transaction with one failed requirement changes no table and leaves no file") {
  TwoTables f;
  const Pointer t_before = f.PointerOf(kT), u_before = f.PointerOf(f.kU);
  const size_t files_before = f.env.files->size();
  const size_t commits_before = f.scripted->commits().size();

  TableChange good = Append(kT, f.Current(), 101);
  TableChange bad = Change(f.kU, {AssertUuid("wrong")}, {SetProperties({{"k", "v"}})});
  SUBCASE("the failing change comes last") {
    CHECK_CODE(f.catalog.CommitTransaction({good, bad}), kCommitFailed);
  }
  SUBCASE("the failing change comes first") {
    CHECK_CODE(f.catalog.CommitTransaction({bad, good}), kCommitFailed);
  }

  CHECK(f.scripted->commits().size() == commits_before);
  CHECK(f.env.files->size() == files_before);
  CHECK(f.PointerOf(kT).metadata_location == t_before.metadata_location);
  CHECK(f.PointerOf(f.kU).metadata_location == u_before.metadata_location);
  CHECK_FALSE(f.Current().current_snapshot_id.has_value());
  CHECK(f.CurrentU().properties.count("k") == 0);
}

TEST_CASE("a transaction whose swap fails on one table changes neither and leaves no file") {
  TwoTables f;
  const Pointer t_before = f.PointerOf(kT), u_before = f.PointerOf(f.kU);
  const size_t files_before = f.env.files->size();
  // The metastore reports every attempt as lost.
  auto lose = [](const std::vector<PointerSwap>&, Metastore&) {
    return Status::CommitFailed("Commit failed: db.u changed concurrently");
  };
  for (int i = 0; i < 10; ++i) f.scripted->ScriptCommit(lose);

  const TableChange u_change =
      Change(f.kU, {AssertUuid(f.CurrentU().table_uuid)}, {SetProperties({{"k", "v"}})});
  CHECK_CODE(f.catalog.CommitTransaction({Append(kT, f.Current(), 101), u_change}),
             kCommitFailed);
  CHECK(f.env.files->size() == files_before);
  CHECK(f.PointerOf(kT).version == t_before.version);
  CHECK(f.PointerOf(f.kU).version == u_before.version);
}

TEST_CASE("a transaction whose second metadata write fails deletes the first file") {
  MemoryEnv env;
  std::atomic<bool> armed{false};
  auto faulty = std::make_shared<FaultyFileIO>(
      env.files, [&](FaultyFileIO::Op op, const std::string& location) {
        bool u_file = location.find("/db/u/metadata/") != std::string::npos;
        return armed.load() && op == FaultyFileIO::Op::kWriteNew && u_file
                   ? Status::IOError("injected")
                   : Status::OK();
      });
  Catalog catalog(env.Options(nullptr, faulty));
  REQUIRE_OK(catalog.CreateNamespace({"db"}, {}));
  const LoadedTable t = MustCreateTable(catalog, {"db"}, "t");
  const LoadedTable u = MustCreateTable(catalog, {"db"}, "u");
  const size_t files_before = env.files->size();
  armed = true;

  Status st = catalog.CommitTransaction(
      {Append(kT, *t.metadata->metadata, 101),
       Change({{"db"}, "u"}, {AssertUuid(u.metadata->metadata->table_uuid)},
              {SetProperties({{"k", "v"}})})});
  CHECK_FALSE(st.ok());
  CHECK(st.code() != Status::Code::kCommitStateUnknown);
  CHECK(env.files->size() == files_before);
  CHECK(MustLoadTable(catalog, kT).metadata_location == t.metadata_location);
  CHECK(MustLoadTable(catalog, {{"db"}, "u"}).metadata_location == u.metadata_location);
}

TEST_CASE("a transaction must name each table once and hold at least one change") {
  TwoTables f;
  CHECK_CODE(f.catalog.CommitTransaction({}), kInvalidArgument);
  CHECK_CODE(f.catalog.CommitTransaction(
                 {Change(kT, {}, {SetProperties({{"a", "1"}})}),
                  Change(kT, {}, {SetProperties({{"b", "2"}})})}),
             kInvalidArgument);
  CHECK(f.Current().properties.count("a") == 0);
}

// --- Creates through a commit

// The updates a client sends to create a table through a commit (as Java's create transaction
// does): everything a new table needs, built from nothing.
std::vector<TableUpdate> CreateUpdates(const std::string& uuid, const std::string& location,
                                       const engine::Schema& schema,
                                       const Properties& properties = {}) {
  TableUpdate assign;
  assign.kind = TableUpdate::Kind::kAssignUuid;
  assign.action = "assign-uuid";
  assign.text = uuid;
  TableUpdate add_schema;
  add_schema.kind = TableUpdate::Kind::kAddSchema;
  add_schema.action = "add-schema";
  add_schema.schema = schema;
  TableUpdate add_spec;
  add_spec.kind = TableUpdate::Kind::kAddSpec;
  add_spec.action = "add-spec";
  add_spec.spec = engine::PartitionSpec{};
  TableUpdate set_spec;
  set_spec.kind = TableUpdate::Kind::kSetDefaultSpec;
  set_spec.action = "set-default-spec";
  set_spec.number = -1;
  TableUpdate add_order;
  add_order.kind = TableUpdate::Kind::kAddSortOrder;
  add_order.action = "add-sort-order";
  add_order.sort_order = engine::SortOrder{};
  TableUpdate set_order;
  set_order.kind = TableUpdate::Kind::kSetDefaultSortOrder;
  set_order.action = "set-default-sort-order";
  set_order.number = -1;
  TableUpdate set_location;
  set_location.kind = TableUpdate::Kind::kSetLocation;
  set_location.action = "set-location";
  set_location.text = location;
  return {assign,    add_schema, SetCurrentSchema(-1), add_spec,
          set_spec,  add_order,  set_order,            set_location,
          SetProperties(properties)};
}

TEST_CASE("a staged create writes nothing, and a commit with assert-create creates the table") {
  MemoryEnv env;
  Catalog catalog(env.Options());
  REQUIRE_OK(catalog.CreateNamespace({"db"}, {}));
  catalog::CreateTableRequest request = SimpleTable("t");
  request.stage_create = true;
  request.properties = {{"owner", "ann"}};

  auto staged = catalog.CreateTable({"db"}, request);
  REQUIRE_OK(staged);
  CHECK(staged->metadata_location.empty());
  CHECK(env.files->size() == 0);
  CHECK_CODE(catalog.LoadTable(kT), kNoSuchTable);

  const TableMetadata& m = *staged->metadata->metadata;
  const std::vector<TableUpdate> updates =
      CreateUpdates(m.table_uuid, m.location, *m.CurrentSchema(), m.properties);
  auto created = catalog.CommitTable(Change(kT, {AssertCreate()}, updates));
  REQUIRE_OK(created);
  CHECK(created->metadata_location.rfind("file:///warehouse/db/t/metadata/00000-", 0) == 0);
  CHECK(env.files->size() == 1);

  const LoadedTable loaded = MustLoadTable(catalog, kT);
  CHECK(loaded.metadata_location == created->metadata_location);
  const TableMetadata& now = *loaded.metadata->metadata;
  CHECK(now.table_uuid == m.table_uuid);
  CHECK(now.location == "file:///warehouse/db/t");
  CHECK(now.properties.at("owner") == "ann");
  CHECK(now.CurrentSchema()->SameStructure(*m.CurrentSchema()));

  // A second create of the same name loses.
  auto again = catalog.CommitTable(Change(kT, {AssertCreate()}, updates));
  CHECK_CODE(again, kCommitFailed);
  CHECK(again.status().message() == "Requirement failed: table already exists");
  CHECK(env.files->size() == 1);
}

TEST_CASE("a create through a commit outside the warehouse is InvalidArgument") {
  MemoryEnv env;
  Catalog catalog(env.Options());
  REQUIRE_OK(catalog.CreateNamespace({"db"}, {}));
  CHECK_CODE(catalog.CommitTable(Change(
                 kT, {AssertCreate()},
                 CreateUpdates("00000-0000-4000-8000-0000000000aa", "file:///elsewhere/t",
                               SimpleSchema()))),
             kInvalidArgument);
  CHECK(env.files->size() == 0);
  CHECK_CODE(catalog.LoadTable(kT), kNoSuchTable);
}

TEST_CASE("an assert-create commit that loses to a concurrent create fails and deletes its file") {
  Fixture f;
  const TableIdentifier fresh{{"db"}, "fresh"};
  const std::string uuid = "00000000-0000-4000-8000-0000000000ff";
  std::string lost_file;
  f.scripted->ScriptCommit([&](const std::vector<PointerSwap>& swaps, Metastore& inner) {
    lost_file = swaps.at(0).new_location;
    MustCreateTable(f.other, {"db"}, "fresh");
    return inner.Commit(swaps);
  });
  const size_t files_before = f.env.files->size();

  auto result = f.catalog.CommitTable(Change(
      fresh, {AssertCreate()}, CreateUpdates(uuid, "file:///warehouse/db/fresh", SimpleSchema())));
  CHECK_CODE(result, kCommitFailed);
  CHECK(result.status().message() == "Requirement failed: table already exists");
  CHECK_FALSE(lost_file.empty());
  CHECK_FALSE(FileExists(*f.env.files, lost_file));
  CHECK(f.env.files->size() == files_before + 1);  // the winner's file
  CHECK(MustLoadTable(f.catalog, fresh).metadata->metadata->table_uuid != uuid);
}

TEST_CASE("an assert-create commit over a view's name is a name clash, not a lost race") {
  Fixture f;
  const TableIdentifier view{{"db"}, "v"};
  REQUIRE_OK(f.env.store->Commit(
      {PointerSwap{view, EntityKind::kView, std::nullopt, "file:///warehouse/db/v/v.json"}}));
  const TableChange create =
      Change(view, {AssertCreate()},
             CreateUpdates("00000000-0000-4000-8000-0000000000ee", "file:///warehouse/db/v2",
                           SimpleSchema()));
  const size_t files_before = f.env.files->size();

  SUBCASE("on its own") { CHECK_CODE(f.catalog.CommitTable(create), kAlreadyExists); }
  SUBCASE("after another table's change in one transaction") {
    const TableChange other_change =
        Change(kT, {AssertUuid(f.Current().table_uuid)}, {SetProperties({{"k", "v"}})});
    CHECK_CODE(f.catalog.CommitTransaction({other_change, create}), kAlreadyExists);
    CHECK(f.Current().properties.count("k") == 0);
  }
  CHECK(f.env.files->size() == files_before);
  CHECK_OK(f.env.store->Load(view, EntityKind::kView));
}

// --- write.metadata.path

TEST_CASE("write.metadata.path places new metadata files, but only inside the warehouse") {
  Fixture f;
  const std::string uuid = f.Current().table_uuid;
  const size_t files_before = f.env.files->size();

  auto outside = f.catalog.CommitTable(
      Change(kT, {AssertUuid(uuid)}, {SetProperties({{"write.metadata.path", "file:///etc"}})}));
  CHECK_CODE(outside, kInvalidArgument);
  CHECK(f.env.files->size() == files_before);

  auto inside = f.catalog.CommitTable(Change(
      kT, {AssertUuid(uuid)},
      {SetProperties({{"write.metadata.path", "file:///warehouse/meta/t/"}})}));
  REQUIRE_OK(inside);
  CHECK(inside->metadata_location.rfind("file:///warehouse/meta/t/00001-", 0) == 0);
  CHECK(FileExists(*f.env.files, inside->metadata_location));
}

}  // namespace
}  // namespace cairn::testing
