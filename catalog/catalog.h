#pragma once

// Catalog: the catalog service. Namespaces, tables and the commit protocol of DESIGN.md:
//
//   read the pointer → load the base document (cache, else FileIO) → check requirements →
//   apply updates → write the new metadata file durably → CAS the pointer → clean up.
//
// A lost CAS whose requirements still hold against the new base is retried here, a bounded
// number of times with jittered backoff. A definite failure deletes the file we wrote; an
// unknown outcome is reconciled against the metastore and, if still unknown, reported as
// CommitStateUnknown with the file kept.
//
// Thread-safe: one Catalog serves all request threads.

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "catalog/identifier.h"
#include "catalog/metadata_cache.h"
#include "catalog/metastore.h"
#include "engine/clock.h"
#include "engine/file_io.h"
#include "engine/metadata_builder.h"
#include "engine/table_requirement.h"
#include "engine/table_update.h"
#include "engine/view_builder.h"

namespace cairn::catalog {

struct CatalogOptions {
  std::shared_ptr<Metastore> metastore;       // required
  std::shared_ptr<engine::FileIO> file_io;    // required
  std::shared_ptr<engine::Clock> clock;       // default: SystemClock
  std::shared_ptr<engine::IdGenerator> ids;   // default: RandomIdGenerator
  // Root of new tables' locations, e.g. "file:///var/lib/cairn/warehouse". Required.
  std::string warehouse;
  // Further prefixes under which clients may place tables (the warehouse is always allowed).
  std::vector<std::string> allowed_locations;
  int max_commit_attempts = 10;             // CAS attempts per commit before a 409
  int64_t idempotency_lifetime_ms = 30 * 60 * 1000;  // how long a key is honoured
  // A key still pending this long after its request started is taken over by a retry. Safe at
  // any value: a taken-over request cannot commit (see Metastore::Commit).
  int64_t idempotency_stale_ms = 10 * 1000;
  size_t cache_bytes = 256u << 20;          // metadata cache budget
  // What clients need to reach the warehouse's store themselves (s3.endpoint, s3.region,
  // s3.path-style-access, ...): sent in GET /v1/config "defaults" and in every
  // LoadTableResult "config". Set by the operator; never taken from table properties.
  Properties client_config;
};

// A page of a listing. `next_token` is absent at the end.
template <typename T>
struct Page {
  std::vector<T> items;
  std::optional<std::string> next_token;
};

struct PageRequest {
  std::string token;  // "" = from the start
  int size = 0;       // 0 = everything
};

struct LoadedTable {
  std::string metadata_location;  // "" for a staged create (nothing written yet)
  std::shared_ptr<const CachedMetadata> metadata;
};

struct CreateTableRequest {
  std::string name;
  engine::Schema schema;
  engine::PartitionSpec spec;
  engine::SortOrder sort_order;
  std::optional<std::string> location;
  Properties properties;
  bool stage_create = false;
};

struct TableChange {
  TableIdentifier id;
  std::vector<engine::TableRequirement> requirements;
  std::vector<engine::TableUpdate> updates;
};

struct LoadedView {
  std::string metadata_location;
  std::shared_ptr<const engine::ViewMetadata> metadata;
};

struct CreateViewRequest {
  std::string name;
  engine::Schema schema;
  engine::ViewVersion version;  // its schema-id is replaced by the id given to `schema`
  std::optional<std::string> location;
  Properties properties;
};

struct ViewChange {
  TableIdentifier id;
  std::vector<engine::ViewRequirement> requirements;
  std::vector<engine::ViewUpdate> updates;
};

// The response recorded under an Idempotency-Key for a request that moved a pointer: the
// REST layer replays it by rendering the metadata file named here.
std::string ReplayMarker(const std::string& metadata_location);
// The metadata location in a ReplayMarker, or nullopt for any other recorded response.
std::optional<std::string> ParseReplayMarker(const std::string& response);

// The Idempotency-Key a request holds, and the token it claimed it with (see Metastore).
// An empty key: the request has none.
struct IdempotencyToken {
  std::string key;
  std::string owner;
};

// The outcome of claiming a key: `existing` is empty when `token` now holds it.
struct IdempotencyClaim {
  std::optional<IdempotencyRecord> existing;
  IdempotencyToken token;
};

struct NamespacePropertiesChange {
  std::vector<std::string> updated, removed, missing;
};

class Catalog {
 public:
  explicit Catalog(CatalogOptions options);

  // --- Namespaces: InvalidArgument for malformed names, NoSuchNamespace, AlreadyExists,
  // NamespaceNotEmpty as the Metastore defines them.
  Status CreateNamespace(const Namespace& ns, const Properties& properties);
  Result<Properties> LoadNamespace(const Namespace& ns);
  Result<Page<Namespace>> ListNamespaces(const Namespace& parent, const PageRequest& page);
  // Unprocessable if a key is both updated and removed.
  Result<NamespacePropertiesChange> UpdateNamespaceProperties(
      const Namespace& ns, const Properties& updates, const std::vector<std::string>& removals);
  Status DropNamespace(const Namespace& ns);

  // --- Tables.
  Result<Page<std::string>> ListTables(const Namespace& ns, const PageRequest& page);
  // NoSuchTable; IOError / InvalidArgument if the metadata file cannot be read or parsed.
  // NotFound "Failed to open input stream for file: ..." when the metadata file is gone.
  Result<LoadedTable> LoadTable(const TableIdentifier& id);
  // The table's current metadata location, checked to exist, without loading the document
  // (for conditional loads). Same errors as LoadTable.
  Result<std::string> CurrentMetadataLocation(const TableIdentifier& id);
  // AlreadyExists, NoSuchNamespace, InvalidArgument (bad schema/spec/location). A staged
  // create writes nothing and returns the would-be metadata.
  Result<LoadedTable> CreateTable(const Namespace& ns, const CreateTableRequest& request,
                                  const IdempotencyToken& idempotency = {});
  // One table's commit. CommitFailed (409) when a requirement fails; NoSuchTable;
  // InvalidArgument for updates that cannot apply; CommitStateUnknown after any doubt.
  Result<LoadedTable> CommitTable(const TableChange& change,
                                  const IdempotencyToken& idempotency = {});
  // All changes in one metastore transaction, or none.
  Status CommitTransaction(const std::vector<TableChange>& changes,
                           const IdempotencyToken& idempotency = {});
  // Removes the table; with `purge` also deletes the files its metadata references (under
  // allowed locations only).
  Status DropTable(const TableIdentifier& id, bool purge);
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to);
  // Adopts an existing metadata file. AlreadyExists unless `overwrite`.
  Result<LoadedTable> RegisterTable(const TableIdentifier& id, const std::string& location,
                                    bool overwrite, const IdempotencyToken& idempotency = {});

  // --- Views: the same rules as tables, with NoSuchView; a view and a table never share a
  // name (AlreadyExists).
  Result<Page<std::string>> ListViews(const Namespace& ns, const PageRequest& page);
  Result<LoadedView> LoadView(const TableIdentifier& id);
  Result<LoadedView> CreateView(const Namespace& ns, const CreateViewRequest& request,
                                const IdempotencyToken& idempotency = {});
  Result<LoadedView> CommitView(const ViewChange& change,
                                const IdempotencyToken& idempotency = {});
  Status DropView(const TableIdentifier& id);
  Status RenameView(const TableIdentifier& from, const TableIdentifier& to);
  Result<LoadedView> RegisterView(const TableIdentifier& id, const std::string& location,
                                  const IdempotencyToken& idempotency = {});

  // --- Idempotency keys (see Metastore): claim before running a mutation, finish with its
  // final response (no-op when the commit already recorded it), release after a 5xx.
  Result<IdempotencyClaim> ClaimIdempotencyKey(const std::string& key,
                                               const std::string& request);
  Status FinishIdempotencyKey(const IdempotencyToken& token, int status,
                              const std::string& response);
  Status ReleaseIdempotencyKey(const IdempotencyToken& token);
  int64_t idempotency_lifetime_ms() const { return options_.idempotency_lifetime_ms; }

  // The table or view document at a metadata location (for replays).
  Result<LoadedTable> LoadTableAt(const std::string& metadata_location);
  Result<LoadedView> LoadViewAt(const std::string& metadata_location);

  // OK when the metastore answers with a current schema.
  Status Ready() { return options_.metastore->Ping(); }

  // The warehouse root, as clients should see it.
  const std::string& warehouse() const { return options_.warehouse; }

  // See CatalogOptions::client_config.
  const Properties& ClientConfig() const { return options_.client_config; }

  // True if the store's WriteNew is an atomic put-if-absent (for S3: what the startup probe
  // of If-None-Match: * found). Reported to operators; commits never depend on it.
  bool StorePutIfAbsent() const { return options_.file_io->SupportsPutIfAbsent(); }

 private:
  struct Prepared;  // one table's change, ready to swap

  Result<Page<std::string>> ListNames(const Namespace& ns, EntityKind kind,
                                      const PageRequest& page);
  Result<std::shared_ptr<const CachedMetadata>> LoadMetadata(const std::string& location);
  std::shared_ptr<const CachedMetadata> Remember(const std::string& location,
                                                 engine::TableMetadata metadata);
  Result<Prepared> Prepare(const TableChange& change);
  Status WritePrepared(std::vector<Prepared>* prepared);
  void DiscardFiles(const std::vector<Prepared>& prepared);
  // After an unknown outcome: OK if every change is in its table's chain, else the cause.
  Status Reconcile(const std::vector<Prepared>& prepared);
  // Runs the prepare → write → swap loop for `changes`; fills `out` on success.
  // A `transaction` replays under its Idempotency-Key as 204, a single-table commit as its
  // new metadata.
  Status CommitChanges(const std::vector<TableChange>& changes, bool transaction,
                       const IdempotencyToken& idempotency, std::vector<Prepared>* out);
  Result<std::shared_ptr<const engine::ViewMetadata>> ReadView(const std::string& location);
  // Writes `metadata` as the new file of entry `id` and swaps the pointer from `expected`
  // (nullopt: create). Deletes the file after a definite failure; on an unknown outcome keeps
  // it unless the metastore shows the swap did not land.
  Status WriteAndSwap(const TableIdentifier& id, EntityKind kind,
                      const std::optional<Pointer>& expected, const std::string& location,
                      const std::string& json, const IdempotencyToken& idempotency);
  Status CheckLocation(const std::string& location) const;
  Result<std::string> DefaultLocation(const TableIdentifier& id);
  // A fresh metadata file name for a table or view at `location` with `properties`
  // (honouring write.metadata.path), numbered one past `previous_file`.
  Result<std::string> NewMetadataLocation(const std::string& location,
                                          const Properties& properties,
                                          const std::string& previous_file);
  void Backoff(int attempt);
  // Takes the commit locks of the tables `changes` name (in a fixed order: no deadlock).
  std::vector<std::unique_lock<std::mutex>> LockTables(const std::vector<TableChange>& changes);
  // Deletes the files `metadata` references: metadata files, manifest lists, manifests, data
  // and delete files, statistics. Best effort; only files under allowed locations.
  void Purge(const engine::TableMetadata& metadata, const std::string& metadata_location);
  // The records of an Avro file, or none when it cannot be read (logged).
  std::vector<engine::Json> ReadAvroRecords(const std::string& location);

  CatalogOptions options_;
  MetadataCache cache_;
  // Commits to one table take turns within this process (the locks are striped by table
  // name), so one that lost a race learns it from its requirements before writing a file,
  // rather than at the swap after writing one. Between processes the metastore's
  // compare-and-swap decides, as always.
  std::array<std::mutex, 256> commit_locks_;
};

}  // namespace cairn::catalog
