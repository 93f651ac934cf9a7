// Many writers appending to one table through one Catalog: every acknowledged commit is in the
// table's history exactly once, and no losing attempt leaves a file behind. Run on the
// in-memory stack and on SQLite with the local filesystem.

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "catalog/sqlite_metastore.h"
#include "engine/local_file_io.h"
#include "tests/catalog/catalog_fixture.h"

namespace cairn::testing {
namespace {

struct MemoryStack {
  MemoryEnv env;
  std::shared_ptr<engine::FileIO> files = env.files;
  std::unique_ptr<Catalog> catalog = std::make_unique<Catalog>(env.Options());
};

struct SqliteStack {
  TempDir dir;
  std::shared_ptr<engine::FileIO> files = std::make_shared<engine::LocalFileIO>();
  std::unique_ptr<Catalog> catalog;

  SqliteStack() {
    auto store = catalog::SqliteMetastore::Open({.path = dir.path() + "/catalog.db"});
    REQUIRE_OK(store);
    CatalogOptions options;
    options.metastore = std::move(store).value();
    options.file_io = files;
    options.clock = std::make_shared<engine::ManualClock>(kStartMillis);
    options.ids = std::make_shared<engine::SequentialIdGenerator>();
    options.warehouse = "file://" + dir.path() + "/warehouse";
    catalog = std::make_unique<Catalog>(options);
  }
};

}  // namespace
}  // namespace cairn::testing

TYPE_TO_STRING(cairn::testing::MemoryStack);
TYPE_TO_STRING(cairn::testing::SqliteStack);

namespace cairn::testing {
namespace {

constexpr int kThreads = 8;
constexpr int kCommitsEach = 25;
constexpr int kMaxAttempts = 1000;

// One writer's outcome: the snapshot ids the catalog acknowledged, and what went wrong.
struct WriterLog {
  std::vector<int64_t> acknowledged;
  std::vector<std::string> errors;
  int retries = 0;  // CommitFailed answers, each followed by a reload
};

void Write(Catalog& catalog, const TableIdentifier& id, int writer, WriterLog* log) {
  for (int n = 0; n < kCommitsEach; ++n) {
    const int64_t snapshot_id = (writer + 1) * 1000 + n;
    bool done = false;
    for (int attempt = 0; attempt < kMaxAttempts && !done; ++attempt) {
      auto loaded = catalog.LoadTable(id);
      if (!loaded.ok()) {
        log->errors.push_back("load: " + loaded.status().ToString());
        return;
      }
      auto committed = catalog.CommitTable(Append(id, *loaded->metadata->metadata, snapshot_id));
      if (committed.ok()) {
        log->acknowledged.push_back(snapshot_id);
        done = true;
      } else if (committed.status().code() == Status::Code::kCommitFailed) {
        ++log->retries;
      } else {
        log->errors.push_back("commit: " + committed.status().ToString());
        return;
      }
    }
    if (!done) {
      log->errors.push_back("snapshot " + std::to_string(snapshot_id) + " never committed");
      return;
    }
  }
}

TEST_CASE_TEMPLATE("concurrent appends to one table all land, each exactly once", Stack,
                   MemoryStack, SqliteStack) {
  Stack stack;
  Catalog& catalog = *stack.catalog;
  const TableIdentifier id{{"db"}, "t"};
  REQUIRE_OK(catalog.CreateNamespace({"db"}, {}));
  const LoadedTable created = MustCreateTable(catalog, {"db"}, "t");
  const std::string table_location = created.metadata->metadata->location;

  std::vector<WriterLog> logs(kThreads);
  std::vector<std::thread> writers;
  for (int w = 0; w < kThreads; ++w) {
    writers.emplace_back(Write, std::ref(catalog), std::cref(id), w, &logs[w]);
  }
  for (std::thread& t : writers) t.join();

  std::vector<int64_t> acknowledged;
  int retries = 0;
  for (const WriterLog& log : logs) {
    retries += log.retries;
    for (const std::string& e : log.errors) FAIL_CHECK(e);
    acknowledged.insert(acknowledged.end(), log.acknowledged.begin(), log.acknowledged.end());
  }
  constexpr size_t kTotal = kThreads * kCommitsEach;
  INFO("writers retried " << retries << " times");  // contention varies with scheduling
  CHECK(acknowledged.size() == kTotal);

  const LoadedTable final_table = MustLoadTable(catalog, id);
  const TableMetadata& m = *final_table.metadata->metadata;
  CHECK(m.snapshots.size() == kTotal);
  CHECK(m.last_sequence_number == static_cast<int64_t>(kTotal));

  // Walk main's chain back to the first snapshot.
  std::set<int64_t> chain;
  std::optional<int64_t> cursor = m.current_snapshot_id;
  for (size_t steps = 0; cursor && steps <= kTotal; ++steps) {
    const engine::Snapshot* s = m.FindSnapshot(*cursor);
    REQUIRE_MESSAGE(s != nullptr, "dangling parent " << *cursor);
    CHECK_MESSAGE(chain.insert(*cursor).second, "snapshot " << *cursor << " repeats");
    cursor = s->parent_snapshot_id;
  }
  CHECK_FALSE(cursor.has_value());
  CHECK(chain.size() == kTotal);
  for (int64_t snapshot_id : acknowledged) {
    CHECK_MESSAGE(chain.count(snapshot_id) == 1, "acknowledged snapshot " << snapshot_id
                                                                          << " is not in main");
  }

  // One metadata file per landed commit plus the create: losers cleaned up after themselves.
  auto files = stack.files->List(table_location + "/metadata");
  REQUIRE_OK(files);
  CHECK(files->size() == kTotal + 1);
  for (const std::string& f : *files) {
    CHECK_MESSAGE(f.ends_with(".metadata.json"), "unexpected file " << f);
  }
}

}  // namespace
}  // namespace cairn::testing
