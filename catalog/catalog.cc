#include "catalog/catalog.h"

#include <algorithm>
#include <cstdio>

#include "catalog/location.h"
#include "engine/avro_reader.h"

namespace cairn::catalog {
namespace {

// Pages a sorted list: items after `page.token`, at most `page.size` of them.
template <typename T, typename KeyFn>
Page<T> Paginate(std::vector<T> items, const PageRequest& page, KeyFn key) {
  Page<T> out;
  auto it = items.begin();
  if (!page.token.empty()) {
    it = std::find_if(items.begin(), items.end(), [&](const T& t) { return key(t) > page.token; });
  }
  size_t remaining = static_cast<size_t>(items.end() - it);
  size_t n = page.size > 0 ? std::min(remaining, static_cast<size_t>(page.size)) : remaining;
  out.items.assign(std::make_move_iterator(it), std::make_move_iterator(it + n));
  if (n < remaining) out.next_token = key(out.items.back());
  return out;
}

Status MissingFile(const std::string& location) {
  return Status::NotFound("Failed to open input stream for file: " + location);
}

std::string NamespaceKey(const Namespace& ns) {
  std::string out;
  for (const std::string& level : ns) {
    if (!out.empty()) out += '\x1f';
    out += level;
  }
  return out;
}

}  // namespace

Catalog::Catalog(CatalogOptions options)
    : options_(std::move(options)), cache_(options_.cache_bytes) {
  if (!options_.clock) options_.clock = std::make_shared<engine::SystemClock>();
  if (!options_.ids) options_.ids = std::make_shared<engine::RandomIdGenerator>();
  options_.warehouse = NormalizeLocation(options_.warehouse);
}

// --- Namespaces

Status Catalog::CreateNamespace(const Namespace& ns, const Properties& properties) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  if (auto it = properties.find("location"); it != properties.end()) {
    RETURN_IF_ERROR(CheckLocation(it->second));
  }
  return options_.metastore->CreateNamespace(ns, properties);
}

Result<Properties> Catalog::LoadNamespace(const Namespace& ns) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  return options_.metastore->LoadNamespace(ns);
}

Result<Page<Namespace>> Catalog::ListNamespaces(const Namespace& parent, const PageRequest& page) {
  if (!parent.empty()) RETURN_IF_ERROR(ValidateNamespace(parent));
  ASSIGN_OR_RETURN(std::vector<Namespace> all, options_.metastore->ListNamespaces(parent));
  return Paginate(std::move(all), page, NamespaceKey);
}

Result<NamespacePropertiesChange> Catalog::UpdateNamespaceProperties(
    const Namespace& ns, const Properties& updates, const std::vector<std::string>& removals) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  for (const std::string& key : removals) {
    if (updates.count(key)) {
      return Status::Unprocessable("property '" + key + "' is both updated and removed");
    }
  }
  if (auto it = updates.find("location"); it != updates.end()) {
    RETURN_IF_ERROR(CheckLocation(it->second));
  }
  ASSIGN_OR_RETURN(Properties before, options_.metastore->LoadNamespace(ns));
  RETURN_IF_ERROR(options_.metastore->UpdateNamespaceProperties(ns, updates, removals));
  NamespacePropertiesChange change;
  for (const auto& [k, v] : updates) change.updated.push_back(k);
  for (const std::string& k : removals) {
    (before.count(k) ? change.removed : change.missing).push_back(k);
  }
  return change;
}

Status Catalog::DropNamespace(const Namespace& ns) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  return options_.metastore->DropNamespace(ns);
}

// --- Tables

Result<Page<std::string>> Catalog::ListNames(const Namespace& ns, EntityKind kind,
                                             const PageRequest& page) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  ASSIGN_OR_RETURN(std::vector<std::string> names, options_.metastore->ListNames(ns, kind));
  return Paginate(std::move(names), page, [](const std::string& s) { return s; });
}

Result<Page<std::string>> Catalog::ListTables(const Namespace& ns, const PageRequest& page) {
  return ListNames(ns, EntityKind::kTable, page);
}

Result<Page<std::string>> Catalog::ListViews(const Namespace& ns, const PageRequest& page) {
  return ListNames(ns, EntityKind::kView, page);
}

std::shared_ptr<const CachedMetadata> Catalog::Remember(const std::string& location,
                                                        engine::TableMetadata metadata) {
  auto entry = std::make_shared<CachedMetadata>();
  entry->json = metadata.ToJsonText();
  entry->metadata = std::make_shared<const engine::TableMetadata>(std::move(metadata));
  if (!location.empty()) cache_.Put(location, entry);
  return entry;
}

Result<std::shared_ptr<const CachedMetadata>> Catalog::LoadMetadata(const std::string& location) {
  if (auto hit = cache_.Get(location)) return hit;
  auto read = options_.file_io->Read(location);
  if (!read.ok() && read.status().code() == Status::Code::kNotFound) return MissingFile(location);
  ASSIGN_OR_RETURN(std::string text, std::move(read));
  auto parsed = engine::TableMetadata::FromJsonText(text);
  if (!parsed.ok()) {
    return Status::Internal("metadata file " + location + " is invalid: " +
                            parsed.status().message());
  }
  return Remember(location, std::move(parsed).value());
}

Result<std::string> Catalog::CurrentMetadataLocation(const TableIdentifier& id) {
  RETURN_IF_ERROR(ValidateNamespace(id.ns));
  ASSIGN_OR_RETURN(Pointer ptr, options_.metastore->Load(id, EntityKind::kTable));
  // Cached documents outlive their files; a table whose current file is gone is broken.
  ASSIGN_OR_RETURN(bool exists, options_.file_io->Exists(ptr.metadata_location));
  if (!exists) return MissingFile(ptr.metadata_location);
  return ptr.metadata_location;
}

Result<LoadedTable> Catalog::LoadTable(const TableIdentifier& id) {
  ASSIGN_OR_RETURN(std::string location, CurrentMetadataLocation(id));
  ASSIGN_OR_RETURN(auto metadata, LoadMetadata(location));
  return LoadedTable{location, std::move(metadata)};
}

Status Catalog::CheckLocation(const std::string& location) const {
  if (IsWithin(location, options_.warehouse)) return Status::OK();
  for (const std::string& root : options_.allowed_locations) {
    if (IsWithin(location, root)) return Status::OK();
  }
  return Status::InvalidArgument("location " + location +
                                 " is outside the warehouse (" + options_.warehouse +
                                 ") and the allowed locations");
}

Result<std::string> Catalog::DefaultLocation(const TableIdentifier& id) {
  ASSIGN_OR_RETURN(Properties props, options_.metastore->LoadNamespace(id.ns));
  if (auto it = props.find("location"); it != props.end()) {
    return JoinLocation(it->second, id.name);
  }
  std::string location = options_.warehouse;
  for (const std::string& level : id.ns) location = JoinLocation(location, level);
  return JoinLocation(location, id.name);
}

Result<std::string> Catalog::NewMetadataLocation(const std::string& location,
                                                 const Properties& properties,
                                                 const std::string& previous_file) {
  long version = 0;
  if (!previous_file.empty()) {
    std::string name = previous_file.substr(previous_file.rfind('/') + 1);
    size_t digits = 0;
    while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) {
      ++digits;
    }
    if (digits > 0 && digits < 10) version = std::stol(name.substr(0, digits)) + 1;
  }
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "%05ld-", version);
  std::string dir = JoinLocation(location, "metadata");
  if (auto it = properties.find("write.metadata.path"); it != properties.end()) {
    RETURN_IF_ERROR(CheckLocation(it->second));
    dir = TrimLocation(it->second);
  }
  return JoinLocation(dir, std::string(prefix) + options_.ids->NewUuid() + ".metadata.json");
}

Result<LoadedTable> Catalog::CreateTable(const Namespace& ns, const CreateTableRequest& request,
                                         const IdempotencyToken& idempotency) {
  RETURN_IF_ERROR(ValidateNamespace(ns));
  RETURN_IF_ERROR(ValidateName(request.name, "table"));
  TableIdentifier id{ns, request.name};
  engine::NewTableRequest spec;
  spec.schema = request.schema;
  spec.spec = request.spec;
  spec.sort_order = request.sort_order;
  spec.properties = request.properties;
  spec.uuid = options_.ids->NewUuid();
  spec.now_ms = options_.clock->NowMillis();
  if (request.location && !request.location->empty()) {
    RETURN_IF_ERROR(CheckLocation(*request.location));
    spec.location = TrimLocation(*request.location);
  } else {
    ASSIGN_OR_RETURN(spec.location, DefaultLocation(id));
  }
  // Fail early, before writing anything, when the name is taken.
  if (options_.metastore->Load(id, EntityKind::kTable).ok()) {
    return EntryExists(id, EntityKind::kTable, EntityKind::kTable);
  }
  if (options_.metastore->Load(id, EntityKind::kView).ok()) {
    return EntryExists(id, EntityKind::kTable, EntityKind::kView);
  }

  ASSIGN_OR_RETURN(engine::TableMetadata metadata, engine::NewTableMetadata(spec));
  if (request.stage_create) return LoadedTable{"", Remember("", std::move(metadata))};

  ASSIGN_OR_RETURN(std::string location,
                   NewMetadataLocation(metadata.location, metadata.properties, ""));
  auto entry = std::make_shared<CachedMetadata>();
  entry->json = metadata.ToJsonText();
  entry->metadata = std::make_shared<const engine::TableMetadata>(std::move(metadata));
  RETURN_IF_ERROR(WriteAndSwap(id, EntityKind::kTable, std::nullopt, location, entry->json,
                               idempotency));
  cache_.Put(location, entry);
  return LoadedTable{location, entry};
}

Status Catalog::WriteAndSwap(const TableIdentifier& id, EntityKind kind,
                             const std::optional<Pointer>& expected, const std::string& location,
                             const std::string& json, const IdempotencyToken& idempotency) {
  RETURN_IF_ERROR(options_.file_io->WriteNew(location, json).WithPrefix(
      "failed to write metadata file"));
  IdempotencyFinish finish{idempotency.key, idempotency.owner, 200, ReplayMarker(location)};
  Status st = options_.metastore->Commit({PointerSwap{id, kind, expected, location}},
                                         idempotency.key.empty() ? nullptr : &finish);
  if (st.code() == Status::Code::kCommitStateUnknown) {
    auto ptr = options_.metastore->Load(id, kind);
    if (ptr.ok() && ptr->metadata_location == location) return Status::OK();
    return st;  // keep the file: the swap may still have landed
  }
  if (!st.ok()) options_.file_io->Delete(location);
  return st;
}


Status Catalog::DropTable(const TableIdentifier& id, bool purge) {
  RETURN_IF_ERROR(ValidateNamespace(id.ns));
  ASSIGN_OR_RETURN(Pointer ptr, options_.metastore->Load(id, EntityKind::kTable));
  std::shared_ptr<const CachedMetadata> metadata;
  if (purge) {
    auto loaded = LoadMetadata(ptr.metadata_location);
    if (loaded.ok()) metadata = *loaded;
  }
  RETURN_IF_ERROR(options_.metastore->Drop(id, EntityKind::kTable));
  if (metadata) Purge(*metadata->metadata, ptr.metadata_location);
  return Status::OK();
}

void Catalog::Purge(const engine::TableMetadata& metadata, const std::string& metadata_location) {
  // Only files this table's metadata references, as Java's dropTableData: never a listing of
  // the location, which another table (renamed, or registered) may share.
  std::vector<std::string> files = {metadata_location};
  for (const engine::MetadataLogEntry& e : metadata.metadata_log) files.push_back(e.metadata_file);
  for (const auto* entries : {&metadata.statistics, &metadata.partition_statistics}) {
    for (const engine::KeyedEntry& e : *entries) {
      files.push_back(e.json.value("statistics-path", ""));
    }
  }
  std::vector<std::string> manifests;
  for (const auto& snapshot : metadata.snapshots) {
    manifests.insert(manifests.end(), snapshot->manifests.begin(), snapshot->manifests.end());
    if (snapshot->manifest_list.empty()) continue;
    files.push_back(snapshot->manifest_list);
    for (const engine::Json& m : ReadAvroRecords(snapshot->manifest_list)) {
      manifests.push_back(m.value("manifest_path", ""));
    }
  }
  std::sort(manifests.begin(), manifests.end());
  manifests.erase(std::unique(manifests.begin(), manifests.end()), manifests.end());
  for (const std::string& manifest : manifests) {
    files.push_back(manifest);
    for (const engine::Json& entry : ReadAvroRecords(manifest)) {
      if (entry.contains("data_file")) files.push_back(entry["data_file"].value("file_path", ""));
    }
  }
  for (const std::string& f : files) {
    if (!f.empty() && CheckLocation(f).ok()) options_.file_io->Delete(f);
  }
}

std::vector<engine::Json> Catalog::ReadAvroRecords(const std::string& location) {
  if (!CheckLocation(location).ok()) return {};
  auto bytes = options_.file_io->Read(location);
  if (!bytes.ok()) return {};
  auto records = engine::ReadAvroFile(*bytes);
  if (!records.ok()) {
    std::fprintf(stderr, "cairn: purge cannot read %s: %s\n", location.c_str(),
                 records.status().message().c_str());
    return {};
  }
  return std::move(records).value();
}

Status Catalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  RETURN_IF_ERROR(ValidateNamespace(from.ns));
  RETURN_IF_ERROR(ValidateNamespace(to.ns));
  RETURN_IF_ERROR(ValidateName(to.name, "table"));
  return options_.metastore->Rename(from, to, EntityKind::kTable);
}

Result<LoadedTable> Catalog::RegisterTable(const TableIdentifier& id, const std::string& location,
                                           bool overwrite, const IdempotencyToken& idempotency) {
  RETURN_IF_ERROR(ValidateNamespace(id.ns));
  RETURN_IF_ERROR(ValidateName(id.name, "table"));
  RETURN_IF_ERROR(CheckLocation(location));
  auto metadata = LoadMetadata(location);
  if (!metadata.ok()) {
    return Status::InvalidArgument("cannot register " + location + ": " +
                                   metadata.status().message());
  }
  RETURN_IF_ERROR(CheckLocation((*metadata)->metadata->location));
  std::optional<Pointer> expected;
  if (overwrite) {
    auto current = options_.metastore->Load(id, EntityKind::kTable);
    if (current.ok()) expected = *current;
  }
  IdempotencyFinish finish{idempotency.key, idempotency.owner, 200, ReplayMarker(location)};
  RETURN_IF_ERROR(options_.metastore->Commit({PointerSwap{id, EntityKind::kTable, expected,
                                                          location}},
                                             idempotency.key.empty() ? nullptr : &finish));
  return LoadedTable{location, *metadata};
}

Result<LoadedTable> Catalog::LoadTableAt(const std::string& metadata_location) {
  ASSIGN_OR_RETURN(auto metadata, LoadMetadata(metadata_location));
  return LoadedTable{metadata_location, std::move(metadata)};
}

std::string ReplayMarker(const std::string& metadata_location) {
  return engine::Json{{"$replay-metadata-location", metadata_location}}.dump();
}

std::optional<std::string> ParseReplayMarker(const std::string& response) {
  if (response.rfind("{\"$replay-metadata-location\"", 0) != 0) return std::nullopt;
  auto json = engine::ParseJson(response);
  if (!json.ok()) return std::nullopt;
  auto location = engine::GetString(*json, "$replay-metadata-location");
  if (!location.ok()) return std::nullopt;
  return *location;
}

Result<IdempotencyClaim> Catalog::ClaimIdempotencyKey(const std::string& key,
                                                      const std::string& request) {
  int64_t now = options_.clock->NowMillis();
  IdempotencyClaim claim;
  claim.token = IdempotencyToken{key, options_.ids->NewUuid()};
  ASSIGN_OR_RETURN(claim.existing, options_.metastore->ClaimIdempotencyKey(
                                       key, request, claim.token.owner, now,
                                       now + options_.idempotency_lifetime_ms,
                                       now - options_.idempotency_stale_ms));
  return claim;
}

Status Catalog::FinishIdempotencyKey(const IdempotencyToken& token, int status,
                                     const std::string& response) {
  return options_.metastore->FinishIdempotencyKey(
      IdempotencyFinish{token.key, token.owner, status, response});
}

Status Catalog::ReleaseIdempotencyKey(const IdempotencyToken& token) {
  return options_.metastore->ReleaseIdempotencyKey(token.key, token.owner);
}

}  // namespace cairn::catalog
