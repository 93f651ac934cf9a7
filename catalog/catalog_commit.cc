// The commit protocol of Catalog (see catalog.h and DESIGN.md "The server commit").
#include <algorithm>
#include <chrono>
#include <functional>
#include <random>
#include <thread>

#include "catalog/catalog.h"
#include "catalog/location.h"

namespace cairn::catalog {

using engine::MetadataBuilder;
using engine::TableMetadata;

struct Catalog::Prepared {
  const TableChange* change = nullptr;
  std::optional<Pointer> base;  // nullopt: the commit creates the table
  bool noop = false;            // nothing changed: no file, no swap
  std::string new_location;
  std::shared_ptr<const CachedMetadata> result;
};

namespace {

bool IsCode(const Status& st, Status::Code code) { return st.code() == code; }

// The format version a create-through-commit starts at: the first requested one, else 2.
int InitialFormatVersion(const TableChange& change) {
  for (const engine::TableUpdate& u : change.updates) {
    if (u.kind == engine::TableUpdate::Kind::kUpgradeFormatVersion) {
      return static_cast<int>(u.number);
    }
  }
  return 2;
}

}  // namespace

Result<Catalog::Prepared> Catalog::Prepare(const TableChange& change) {
  Prepared p;
  p.change = &change;
  std::shared_ptr<const CachedMetadata> base;
  auto ptr = options_.metastore->Load(change.id, EntityKind::kTable);
  if (ptr.ok()) {
    p.base = *ptr;
    ASSIGN_OR_RETURN(base, LoadMetadata(ptr->metadata_location));
  } else if (!IsCode(ptr.status(), Status::Code::kNoSuchTable) ||
             !engine::HasAssertCreate(change.requirements)) {
    return ptr.status();
  }
  const TableMetadata* base_md = base ? base->metadata.get() : nullptr;
  for (const engine::TableRequirement& r : change.requirements) RETURN_IF_ERROR(r.Check(base_md));

  TableMetadata start = base_md ? *base_md : MetadataBuilder::Empty(InitialFormatVersion(change));
  MetadataBuilder builder(start, p.base ? p.base->metadata_location : "",
                          options_.clock->NowMillis());
  RETURN_IF_ERROR(builder.ApplyAll(change.updates));
  if (base && !builder.changed()) {
    p.noop = true;
    p.result = base;
    return p;
  }
  ASSIGN_OR_RETURN(TableMetadata next, builder.Build());
  RETURN_IF_ERROR(CheckLocation(next.location));
  ASSIGN_OR_RETURN(p.new_location,
                   NewMetadataLocation(next.location, next.properties,
                                       p.base ? p.base->metadata_location : std::string()));
  auto entry = std::make_shared<CachedMetadata>();
  entry->json = next.ToJsonText();
  entry->metadata = std::make_shared<const TableMetadata>(std::move(next));
  p.result = std::move(entry);
  return p;
}

Status Catalog::WritePrepared(std::vector<Prepared>* prepared) {
  for (size_t i = 0; i < prepared->size(); ++i) {
    Prepared& p = (*prepared)[i];
    if (p.noop) continue;
    Status st = options_.file_io->WriteNew(p.new_location, p.result->json);
    if (!st.ok()) {
      DiscardFiles(std::vector<Prepared>(prepared->begin(), prepared->begin() + i));
      return st.WithPrefix("failed to write metadata file");
    }
  }
  return Status::OK();
}

void Catalog::DiscardFiles(const std::vector<Prepared>& prepared) {
  for (const Prepared& p : prepared) {
    if (!p.noop) options_.file_io->Delete(p.new_location);
  }
}

Status Catalog::Reconcile(const std::vector<Prepared>& prepared) {
  for (const Prepared& p : prepared) {
    if (p.noop) continue;
    auto ptr = options_.metastore->Load(p.change->id, EntityKind::kTable);
    if (!ptr.ok()) {
      return Status::CommitStateUnknown("commit outcome unknown for " +
                                        ToString(p.change->id) + ": " + ptr.status().message());
    }
    if (ptr->metadata_location == p.new_location) continue;
    auto current = LoadMetadata(ptr->metadata_location);
    bool in_chain = false;
    if (current.ok()) {
      for (const auto& e : (*current)->metadata->metadata_log) {
        in_chain |= e.metadata_file == p.new_location;
      }
    }
    if (!in_chain) {
      return Status::CommitStateUnknown("commit outcome unknown for " + ToString(p.change->id) +
                                        ": the metastore did not confirm the swap");
    }
  }
  return Status::OK();
}

void Catalog::Backoff(int attempt) {
  thread_local std::mt19937 rng{std::random_device{}()};
  int cap_us = std::min(50'000, 500 << std::min(attempt, 6));
  std::uniform_int_distribution<int> jitter(cap_us / 4, cap_us);
  std::this_thread::sleep_for(std::chrono::microseconds(jitter(rng)));
}

Status Catalog::CommitChanges(const std::vector<TableChange>& changes, bool transaction,
                              const IdempotencyToken& idempotency, std::vector<Prepared>* out) {
  for (const TableChange& c : changes) {
    RETURN_IF_ERROR(ValidateNamespace(c.id.ns));
    RETURN_IF_ERROR(ValidateName(c.id.name, "table"));
  }
  for (int attempt = 1;; ++attempt) {
    std::vector<std::unique_lock<std::mutex>> locks = LockTables(changes);
    std::vector<Prepared> prepared;
    std::vector<PointerSwap> swaps;
    for (const TableChange& c : changes) {
      ASSIGN_OR_RETURN(Prepared p, Prepare(c));
      if (!p.noop) {
        swaps.push_back(PointerSwap{c.id, EntityKind::kTable, p.base, p.new_location});
      }
      prepared.push_back(std::move(p));
    }
    if (swaps.empty()) {
      *out = std::move(prepared);
      return Status::OK();
    }
    RETURN_IF_ERROR(WritePrepared(&prepared));
    IdempotencyFinish finish{idempotency.key, idempotency.owner, transaction ? 204 : 200,
                             transaction ? "" : ReplayMarker(prepared[0].new_location)};
    Status st = options_.metastore->Commit(swaps, idempotency.key.empty() ? nullptr : &finish);
    if (IsCode(st, Status::Code::kCommitStateUnknown)) st = Reconcile(prepared);
    if (st.ok()) {
      for (const Prepared& p : prepared) {
        if (!p.noop) cache_.Put(p.new_location, p.result);
      }
      *out = std::move(prepared);
      return Status::OK();
    }
    if (IsCode(st, Status::Code::kCommitStateUnknown)) return st;  // keep the files
    DiscardFiles(prepared);
    if (IsCode(st, Status::Code::kAlreadyExists)) {
      // A create lost to another create: the assert-create requirement failed. A view of
      // that name is a name clash, not a race.
      for (const Prepared& p : prepared) {
        const TableIdentifier& id = p.change->id;
        if (!p.noop && !p.base && options_.metastore->Load(id, EntityKind::kView).ok()) {
          return EntryExists(id, EntityKind::kTable, EntityKind::kView);
        }
      }
      return Status::CommitFailed("Requirement failed: table already exists");
    }
    if (!IsCode(st, Status::Code::kCommitFailed)) return st;
    if (attempt >= options_.max_commit_attempts) {
      return Status::CommitFailed(st.message() + " (gave up after " + std::to_string(attempt) +
                                  " attempts)");
    }
    // The first retry runs at once: when the client's requirements no longer hold on the new
    // base (the usual case on a hot table), it answers 409 without waiting. Later retries
    // (within a process commits to a table take turns, so these race other replicas) back off.
    locks.clear();
    if (attempt > 1) Backoff(attempt - 1);
  }
}

std::vector<std::unique_lock<std::mutex>> Catalog::LockTables(
    const std::vector<TableChange>& changes) {
  std::vector<size_t> stripes;
  for (const TableChange& c : changes) {
    stripes.push_back(std::hash<std::string>{}(ToString(c.id)) % commit_locks_.size());
  }
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  std::vector<std::unique_lock<std::mutex>> locks;
  for (size_t i : stripes) locks.emplace_back(commit_locks_[i]);
  return locks;
}

Result<LoadedTable> Catalog::CommitTable(const TableChange& change,
                                         const IdempotencyToken& idempotency) {
  std::vector<Prepared> done;
  RETURN_IF_ERROR(CommitChanges({change}, /*transaction=*/false, idempotency, &done));
  const Prepared& p = done.front();
  return LoadedTable{p.noop ? p.base->metadata_location : p.new_location, p.result};
}

Status Catalog::CommitTransaction(const std::vector<TableChange>& changes,
                                  const IdempotencyToken& idempotency) {
  if (changes.empty()) return Status::InvalidArgument("a transaction needs at least one change");
  for (size_t i = 0; i < changes.size(); ++i) {
    for (size_t j = i + 1; j < changes.size(); ++j) {
      if (changes[i].id == changes[j].id) {
        return Status::InvalidArgument("table " + ToString(changes[i].id) +
                                       " appears more than once in the transaction");
      }
    }
  }
  std::vector<Prepared> done;
  return CommitChanges(changes, /*transaction=*/true, idempotency, &done);
}

}  // namespace cairn::catalog
