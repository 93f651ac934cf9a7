#include "catalog/memory_metastore.h"

#include <set>

namespace cairn::catalog {
namespace {

bool IsPrefix(const Namespace& prefix, const Namespace& ns) {
  return prefix.size() < ns.size() && std::equal(prefix.begin(), prefix.end(), ns.begin());
}

Status NoSuchNamespace(const Namespace& ns) { return NoSuchNamespaceError(ns); }

}  // namespace

Status MemoryMetastore::CreateNamespace(const Namespace& ns, const Properties& properties) {
  std::lock_guard lock(mu_);
  if (!namespaces_.emplace(ns, properties).second) {
    return Status::AlreadyExists("Namespace already exists: " + JoinNamespace(ns));
  }
  return Status::OK();
}

Result<Properties> MemoryMetastore::LoadNamespace(const Namespace& ns) {
  std::lock_guard lock(mu_);
  auto it = namespaces_.find(ns);
  if (it == namespaces_.end()) return NoSuchNamespace(ns);
  return it->second;
}

Result<std::vector<Namespace>> MemoryMetastore::ListNamespaces(const Namespace& parent) {
  std::lock_guard lock(mu_);
  if (!parent.empty() && namespaces_.count(parent) == 0) return NoSuchNamespace(parent);
  std::set<Namespace> children;
  for (const auto& [ns, props] : namespaces_) {
    if (IsPrefix(parent, ns)) children.insert(Namespace(ns.begin(), ns.begin() + parent.size() + 1));
  }
  return std::vector<Namespace>(children.begin(), children.end());
}

Status MemoryMetastore::UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                                  const std::vector<std::string>& removals) {
  std::lock_guard lock(mu_);
  auto it = namespaces_.find(ns);
  if (it == namespaces_.end()) return NoSuchNamespace(ns);
  for (const std::string& k : removals) it->second.erase(k);
  for (const auto& [k, v] : updates) it->second[k] = v;
  return Status::OK();
}

Status MemoryMetastore::DropNamespace(const Namespace& ns) {
  std::lock_guard lock(mu_);
  if (namespaces_.count(ns) == 0) return NoSuchNamespace(ns);
  for (const auto& [id, entry] : entries_) {
    if (id.ns == ns) {
      return Status::NamespaceNotEmpty("Namespace " + JoinNamespace(ns) + " is not empty: " +
                                       "it holds " + id.name);
    }
  }
  for (const auto& [other, props] : namespaces_) {
    if (IsPrefix(ns, other)) {
      return Status::NamespaceNotEmpty("Namespace " + JoinNamespace(ns) +
                                       " is not empty: it holds namespace " +
                                       JoinNamespace(other));
    }
  }
  namespaces_.erase(ns);
  return Status::OK();
}

Result<Pointer> MemoryMetastore::Load(const TableIdentifier& id, EntityKind kind) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.kind != kind) return NoSuchEntry(id, kind);
  return it->second.pointer;
}

Result<std::vector<std::string>> MemoryMetastore::ListNames(const Namespace& ns,
                                                            EntityKind kind) {
  std::lock_guard lock(mu_);
  if (namespaces_.count(ns) == 0) return NoSuchNamespace(ns);
  std::vector<std::string> out;
  for (auto it = entries_.lower_bound(TableIdentifier{ns, ""});
       it != entries_.end() && it->first.ns == ns; ++it) {
    if (it->second.kind == kind) out.push_back(it->first.name);
  }
  return out;
}

Status MemoryMetastore::ApplySwap(const PointerSwap& swap,
                                  std::map<TableIdentifier, Entry>* entries) const {
  auto it = entries->find(swap.id);
  if (!swap.expected) {
    if (namespaces_.count(swap.id.ns) == 0) return NoSuchNamespace(swap.id.ns);
    if (it != entries->end()) return EntryExists(swap.id, swap.kind, it->second.kind);
    entries->emplace(swap.id, Entry{swap.kind, Pointer{swap.new_location, 0}});
    return Status::OK();
  }
  if (it == entries->end() || it->second.kind != swap.kind) {
    return Status::CommitFailed(ToString(swap.id) + " was dropped concurrently");
  }
  const Pointer& now = it->second.pointer;
  if (now.metadata_location != swap.expected->metadata_location ||
      now.version != swap.expected->version) {
    return Status::CommitFailed("Commit failed: " + ToString(swap.id) +
                                " changed concurrently (now at " + now.metadata_location + ")");
  }
  it->second.pointer = Pointer{swap.new_location, now.version + 1};
  return Status::OK();
}

Status MemoryMetastore::Commit(const std::vector<PointerSwap>& swaps,
                               const IdempotencyFinish* finish) {
  std::lock_guard lock(mu_);
  // Swaps apply one after another to a staged copy, as in one SQL transaction.
  std::map<TableIdentifier, Entry> staged = entries_;
  for (const PointerSwap& swap : swaps) RETURN_IF_ERROR(ApplySwap(swap, &staged));
  if (finish != nullptr && !FinishLocked(*finish)) return KeyLost(finish->key);
  entries_ = std::move(staged);
  return Status::OK();
}

Result<std::optional<IdempotencyRecord>> MemoryMetastore::ClaimIdempotencyKey(
    const std::string& key, const std::string& request, const std::string& owner,
    int64_t now_ms, int64_t expires_at_ms, int64_t stale_before_ms) {
  std::lock_guard lock(mu_);
  std::erase_if(keys_, [&](const auto& kv) { return kv.second.expires_at_ms < now_ms; });
  auto it = keys_.find(key);
  if (it == keys_.end()) {
    keys_[key] = Key{IdempotencyRecord{request, false, 0, "", now_ms}, owner, expires_at_ms};
    return std::optional<IdempotencyRecord>();
  }
  IdempotencyRecord& r = it->second.record;
  if (!r.done && r.request == request && r.created_at_ms < stale_before_ms) {
    r.created_at_ms = now_ms;  // its request looks dead: take it over
    it->second.owner = owner;
    return std::optional<IdempotencyRecord>();
  }
  return std::optional<IdempotencyRecord>(r);
}

bool MemoryMetastore::FinishLocked(const IdempotencyFinish& finish) {
  auto it = keys_.find(finish.key);
  if (it == keys_.end() || it->second.record.done || it->second.owner != finish.owner) {
    return false;
  }
  it->second.record.done = true;
  it->second.record.status = finish.status;
  it->second.record.response = finish.response;
  return true;
}

Status MemoryMetastore::FinishIdempotencyKey(const IdempotencyFinish& finish) {
  std::lock_guard lock(mu_);
  FinishLocked(finish);
  return Status::OK();
}

Status MemoryMetastore::ReleaseIdempotencyKey(const std::string& key, const std::string& owner) {
  std::lock_guard lock(mu_);
  auto it = keys_.find(key);
  if (it != keys_.end() && !it->second.record.done && it->second.owner == owner) keys_.erase(it);
  return Status::OK();
}

Status MemoryMetastore::Drop(const TableIdentifier& id, EntityKind kind) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.kind != kind) return NoSuchEntry(id, kind);
  entries_.erase(it);
  return Status::OK();
}

Status MemoryMetastore::Rename(const TableIdentifier& from, const TableIdentifier& to,
                               EntityKind kind) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(from);
  if (it == entries_.end() || it->second.kind != kind) return NoSuchEntry(from, kind);
  if (namespaces_.count(to.ns) == 0) return NoSuchNamespace(to.ns);
  if (auto target = entries_.find(to); target != entries_.end()) {
    return RenameTargetExists(from, to, target->second.kind);
  }
  Entry entry = it->second;
  entries_.erase(it);
  entries_.emplace(to, entry);
  return Status::OK();
}

}  // namespace cairn::catalog
