#pragma once

// MemoryMetastore: the in-memory reference Metastore. Every other implementation must behave
// like it (tests/catalog/metastore_contract_test.cc). One mutex guards everything.

#include <map>
#include <mutex>

#include "catalog/metastore.h"

namespace cairn::catalog {

class MemoryMetastore final : public Metastore {
 public:
  Status CreateNamespace(const Namespace& ns, const Properties& properties) override;
  Result<Properties> LoadNamespace(const Namespace& ns) override;
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  Status UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                   const std::vector<std::string>& removals) override;
  Status DropNamespace(const Namespace& ns) override;
  Result<Pointer> Load(const TableIdentifier& id, EntityKind kind) override;
  Result<std::vector<std::string>> ListNames(const Namespace& ns, EntityKind kind) override;
  Status Commit(const std::vector<PointerSwap>& swaps,
                const IdempotencyFinish* finish = nullptr) override;
  Result<std::optional<IdempotencyRecord>> ClaimIdempotencyKey(
      const std::string& key, const std::string& request, const std::string& owner,
      int64_t now_ms, int64_t expires_at_ms, int64_t stale_before_ms) override;
  Status FinishIdempotencyKey(const IdempotencyFinish& finish) override;
  Status ReleaseIdempotencyKey(const std::string& key, const std::string& owner) override;
  Status Drop(const TableIdentifier& id, EntityKind kind) override;
  Status Rename(const TableIdentifier& from, const TableIdentifier& to,
                EntityKind kind) override;
  Status Ping() override { return Status::OK(); }

 private:
  struct Entry {
    EntityKind kind;
    Pointer pointer;
  };

  // Checks `swap` against `entries` and applies it there. REQUIRES: mu_ held.
  // True if it recorded (the owner held the key pending). REQUIRES: mu_ held.
  bool FinishLocked(const IdempotencyFinish& finish);
  Status ApplySwap(const PointerSwap& swap, std::map<TableIdentifier, Entry>* entries) const;

  std::mutex mu_;
  std::map<Namespace, Properties> namespaces_;
  std::map<TableIdentifier, Entry> entries_;
  struct Key {
    IdempotencyRecord record;
    std::string owner;
    int64_t expires_at_ms;
  };
  std::map<std::string, Key> keys_;
};

}  // namespace cairn::catalog
