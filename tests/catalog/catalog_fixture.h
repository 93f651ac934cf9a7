#pragma once

// Building blocks of the Catalog tests: an in-memory environment (MemoryMetastore,
// MemoryFileIO, ManualClock, SequentialIdGenerator), table updates and requirements as a
// client would send them, and ScriptedMetastore, a Metastore double whose next commits a test
// scripts (lose the CAS, report an unknown outcome after applying or not, ...).

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/memory_metastore.h"
#include "engine/clock.h"
#include "engine/memory_file_io.h"
#include "tests/catalog/test_support.h"

namespace cairn::testing {

using catalog::Catalog;
using catalog::CatalogOptions;
using catalog::EntityKind;
using catalog::LoadedTable;
using catalog::Metastore;
using catalog::Namespace;
using catalog::Pointer;
using catalog::PointerSwap;
using catalog::TableChange;
using catalog::TableIdentifier;
using engine::Properties;
using engine::Result;
using engine::Status;
using engine::TableMetadata;
using engine::TableRequirement;
using engine::TableUpdate;

inline constexpr const char* kWarehouse = "file:///warehouse";
inline constexpr int64_t kStartMillis = 1'700'000'000'000;

inline engine::Schema SimpleSchema() {
  auto schema = engine::Schema::FromJson(engine::Json::parse(R"({
      "type": "struct",
      "fields": [
        {"id": 1, "name": "id", "required": true, "type": "long"},
        {"id": 2, "name": "data", "required": false, "type": "string"}
      ]})"));
  REQUIRE_OK(schema);
  return *schema;
}

inline catalog::CreateTableRequest SimpleTable(const std::string& name) {
  catalog::CreateTableRequest request;
  request.name = name;
  request.schema = SimpleSchema();
  return request;
}

// --- Updates and requirements, as a client builds them.

// The manifest list a snapshot of the table at `table_location` would have.
inline std::string ManifestList(const std::string& table_location, int64_t snapshot_id) {
  return table_location + "/metadata/snap-" + std::to_string(snapshot_id) + ".avro";
}

inline TableUpdate AddSnapshot(int64_t id, std::optional<int64_t> parent, int64_t sequence_number,
                               int64_t timestamp_ms,
                               const std::string& table_location = kWarehouse) {
  engine::Snapshot s;
  s.snapshot_id = id;
  s.parent_snapshot_id = parent;
  s.sequence_number = sequence_number;
  s.timestamp_ms = timestamp_ms;
  s.manifest_list = ManifestList(table_location, id);
  s.summary = {{"operation", "append"}};
  TableUpdate u;
  u.kind = TableUpdate::Kind::kAddSnapshot;
  u.action = "add-snapshot";
  u.snapshot = s;
  return u;
}

inline TableUpdate SetRef(const std::string& name, int64_t snapshot_id) {
  TableUpdate u;
  u.kind = TableUpdate::Kind::kSetSnapshotRef;
  u.action = "set-snapshot-ref";
  u.text = name;
  u.ref = engine::SnapshotRef{};
  u.ref->snapshot_id = snapshot_id;
  return u;
}

inline TableUpdate SetProperties(Properties updates) {
  TableUpdate u;
  u.kind = TableUpdate::Kind::kSetProperties;
  u.action = "set-properties";
  u.updates = std::move(updates);
  return u;
}

inline TableUpdate SetCurrentSchema(int64_t schema_id) {
  TableUpdate u;
  u.kind = TableUpdate::Kind::kSetCurrentSchema;
  u.action = "set-current-schema";
  u.number = schema_id;
  return u;
}

inline TableRequirement AssertUuid(const std::string& uuid) {
  TableRequirement r;
  r.kind = TableRequirement::Kind::kAssertTableUuid;
  r.text = uuid;
  return r;
}

// assert-ref-snapshot-id; nullopt: the ref must not exist.
inline TableRequirement AssertRef(const std::string& name, std::optional<int64_t> snapshot_id) {
  TableRequirement r;
  r.kind = TableRequirement::Kind::kAssertRefSnapshotId;
  r.text = name;
  r.number = snapshot_id;
  return r;
}

inline TableRequirement AssertCreate() {
  TableRequirement r;
  r.kind = TableRequirement::Kind::kAssertCreate;
  return r;
}

// An append built on `base` the way engines do it: requirements pin the table and main, the
// new snapshot's parent is main and its sequence number the next one.
inline TableChange Append(const TableIdentifier& id, const TableMetadata& base,
                          int64_t snapshot_id) {
  TableChange change;
  change.id = id;
  change.requirements = {AssertUuid(base.table_uuid), AssertRef("main", base.current_snapshot_id)};
  change.updates = {AddSnapshot(snapshot_id, base.current_snapshot_id,
                                base.last_sequence_number + 1, kStartMillis + snapshot_id,
                                base.location),
                    SetRef("main", snapshot_id)};
  return change;
}

inline TableChange Change(const TableIdentifier& id, std::vector<TableRequirement> requirements,
                          std::vector<TableUpdate> updates) {
  return TableChange{id, std::move(requirements), std::move(updates)};
}

// --- Environment

// The seams of a Catalog, all in memory. `Options()` wires them, optionally through a
// different metastore or FileIO (a double wrapping these).
struct MemoryEnv {
  std::shared_ptr<catalog::MemoryMetastore> store = std::make_shared<catalog::MemoryMetastore>();
  std::shared_ptr<engine::MemoryFileIO> files = std::make_shared<engine::MemoryFileIO>();
  std::shared_ptr<engine::ManualClock> clock = std::make_shared<engine::ManualClock>(kStartMillis);
  std::shared_ptr<engine::SequentialIdGenerator> ids =
      std::make_shared<engine::SequentialIdGenerator>();

  CatalogOptions Options(std::shared_ptr<Metastore> metastore = nullptr,
                         std::shared_ptr<engine::FileIO> file_io = nullptr) const {
    CatalogOptions o;
    o.metastore = metastore ? std::move(metastore) : store;
    o.file_io = file_io ? std::move(file_io) : files;
    o.clock = clock;
    o.ids = ids;
    o.warehouse = kWarehouse;
    return o;
  }
};

inline LoadedTable MustLoadTable(Catalog& catalog, const TableIdentifier& id) {
  auto loaded = catalog.LoadTable(id);
  REQUIRE_OK(loaded);
  return *loaded;
}

inline LoadedTable MustCreateTable(Catalog& catalog, const Namespace& ns, const std::string& name) {
  auto created = catalog.CreateTable(ns, SimpleTable(name));
  REQUIRE_OK(created);
  return *created;
}

inline bool FileExists(engine::FileIO& files, const std::string& location) {
  auto exists = files.Exists(location);
  REQUIRE_OK(exists);
  return *exists;
}

// A Metastore that forwards to `inner`, except that each scripted hook replaces one Commit
// (the next unscripted ones forward again). It records every commit's swaps. Thread-safe.
class ScriptedMetastore final : public Metastore {
 public:
  using CommitHook = std::function<Status(const std::vector<PointerSwap>& swaps, Metastore& inner)>;

  explicit ScriptedMetastore(std::shared_ptr<Metastore> inner) : inner_(std::move(inner)) {}

  void ScriptCommit(CommitHook hook) {
    std::lock_guard lock(mu_);
    hooks_.push_back(std::move(hook));
  }
  // Every Commit call's swaps, oldest first.
  std::vector<std::vector<PointerSwap>> commits() const {
    std::lock_guard lock(mu_);
    return commits_;
  }

  Status Commit(const std::vector<PointerSwap>& swaps,
                const catalog::IdempotencyFinish* finish = nullptr) override {
    CommitHook hook;
    {
      std::lock_guard lock(mu_);
      commits_.push_back(swaps);
      if (!hooks_.empty()) {
        hook = std::move(hooks_.front());
        hooks_.pop_front();
      }
    }
    return hook ? hook(swaps, *inner_) : inner_->Commit(swaps, finish);
  }

  Status CreateNamespace(const Namespace& ns, const Properties& properties) override {
    return inner_->CreateNamespace(ns, properties);
  }
  Result<Properties> LoadNamespace(const Namespace& ns) override {
    return inner_->LoadNamespace(ns);
  }
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    return inner_->ListNamespaces(parent);
  }
  Status UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                   const std::vector<std::string>& removals) override {
    return inner_->UpdateNamespaceProperties(ns, updates, removals);
  }
  Status DropNamespace(const Namespace& ns) override { return inner_->DropNamespace(ns); }
  Result<Pointer> Load(const TableIdentifier& id, EntityKind kind) override {
    return inner_->Load(id, kind);
  }
  Result<std::vector<std::string>> ListNames(const Namespace& ns, EntityKind kind) override {
    return inner_->ListNames(ns, kind);
  }
  Status Drop(const TableIdentifier& id, EntityKind kind) override {
    return inner_->Drop(id, kind);
  }
  Status Rename(const TableIdentifier& from, const TableIdentifier& to,
                EntityKind kind) override {
    return inner_->Rename(from, to, kind);
  }
  Status Ping() override { return inner_->Ping(); }
  Result<std::optional<catalog::IdempotencyRecord>> ClaimIdempotencyKey(
      const std::string& key, const std::string& request, const std::string& owner,
      int64_t now_ms, int64_t expires_at_ms, int64_t stale_before_ms) override {
    return inner_->ClaimIdempotencyKey(key, request, owner, now_ms, expires_at_ms, stale_before_ms);
  }
  Status FinishIdempotencyKey(const catalog::IdempotencyFinish& finish) override {
    return inner_->FinishIdempotencyKey(finish);
  }
  Status ReleaseIdempotencyKey(const std::string& key, const std::string& owner) override {
    return inner_->ReleaseIdempotencyKey(key, owner);
  }

 private:
  std::shared_ptr<Metastore> inner_;
  mutable std::mutex mu_;
  std::deque<CommitHook> hooks_;
  std::vector<std::vector<PointerSwap>> commits_;
};

}  // namespace cairn::testing
