#include "catalog/metadata_cache.h"

namespace cairn::catalog {

std::shared_ptr<const CachedMetadata> MetadataCache::Get(const std::string& location) {
  std::lock_guard lock(mu_);
  auto it = slots_.find(location);
  if (it == slots_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.position);
  return it->second.entry;
}

void MetadataCache::Put(const std::string& location, std::shared_ptr<const CachedMetadata> entry) {
  size_t cost = Cost(*entry);
  std::lock_guard lock(mu_);
  if (cost > budget_ || slots_.count(location)) return;
  lru_.push_front(location);
  slots_.emplace(location, Slot{std::move(entry), lru_.begin(), cost});
  used_ += cost;
  while (used_ > budget_ && !lru_.empty()) {
    auto victim = slots_.find(lru_.back());
    used_ -= victim->second.cost;
    slots_.erase(victim);
    lru_.pop_back();
  }
}

}  // namespace cairn::catalog
