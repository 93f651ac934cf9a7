#include "catalog/mutant_metastore.h"

#include <atomic>

namespace cairn::catalog {
namespace {

class MutantMetastore final : public Metastore {
 public:
  MutantMetastore(std::shared_ptr<Metastore> base, Mutant mutant)
      : base_(std::move(base)), mutant_(mutant) {}

  Status CreateNamespace(const Namespace& ns, const Properties& p) override {
    return base_->CreateNamespace(ns, p);
  }
  Result<Properties> LoadNamespace(const Namespace& ns) override {
    return base_->LoadNamespace(ns);
  }
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    return base_->ListNamespaces(parent);
  }
  Status UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                   const std::vector<std::string>& removals) override {
    return base_->UpdateNamespaceProperties(ns, updates, removals);
  }
  Status DropNamespace(const Namespace& ns) override { return base_->DropNamespace(ns); }
  Result<Pointer> Load(const TableIdentifier& id, EntityKind kind) override {
    return base_->Load(id, kind);
  }
  Result<std::vector<std::string>> ListNames(const Namespace& ns, EntityKind kind) override {
    return base_->ListNames(ns, kind);
  }
  Status Drop(const TableIdentifier& id, EntityKind kind) override { return base_->Drop(id, kind); }
  Status Rename(const TableIdentifier& from, const TableIdentifier& to,
                EntityKind kind) override {
    return base_->Rename(from, to, kind);
  }
  Status Ping() override { return base_->Ping(); }
  Result<std::optional<IdempotencyRecord>> ClaimIdempotencyKey(
      const std::string& key, const std::string& request, const std::string& owner,
      int64_t now_ms, int64_t expires_at_ms, int64_t stale_before_ms) override {
    return base_->ClaimIdempotencyKey(key, request, owner, now_ms, expires_at_ms, stale_before_ms);
  }
  Status FinishIdempotencyKey(const IdempotencyFinish& finish) override {
    return base_->FinishIdempotencyKey(finish);
  }
  Status ReleaseIdempotencyKey(const std::string& key, const std::string& owner) override {
    return base_->ReleaseIdempotencyKey(key, owner);
  }

  Status Commit(const std::vector<PointerSwap>& swaps,
                const IdempotencyFinish* finish) override {
    if (mutant_ == Mutant::kCasWithoutPredicate) {
      std::vector<PointerSwap> blind = swaps;
      for (PointerSwap& s : blind) {
        if (!s.expected) continue;
        auto now = base_->Load(s.id, s.kind);
        if (now.ok()) s.expected = *now;  // compare against whatever is there: no compare
      }
      return base_->Commit(blind, finish);
    }
    Status st = base_->Commit(swaps, finish);
    if (st.ok() && ++commits_ % 5 == 0) {
      return Status::CommitFailed("mutant: a conflict reported after a successful swap");
    }
    return st;
  }

 private:
  std::shared_ptr<Metastore> base_;
  Mutant mutant_;
  std::atomic<uint64_t> commits_{0};
};

}  // namespace

Result<Mutant> ParseMutant(const std::string& name) {
  if (name.empty()) return Mutant::kNone;
  if (name == "cas-without-predicate") return Mutant::kCasWithoutPredicate;
  if (name == "false-conflict") return Mutant::kFalseConflict;
  return Status::InvalidArgument("unknown mutant '" + name +
                                 "' (cas-without-predicate, false-conflict)");
}

std::shared_ptr<Metastore> WithMutant(std::shared_ptr<Metastore> store, Mutant mutant) {
  if (mutant == Mutant::kNone) return store;
  return std::make_shared<MutantMetastore>(std::move(store), mutant);
}

}  // namespace cairn::catalog
