#include "catalog/metadata_cache.h"

#include <malloc.h>

namespace cairn::catalog {

MetadataCache::MetadataCache(size_t budget_bytes)
    : budget_(budget_bytes), janitor_([this] { FreeEvicted(); }) {}

MetadataCache::~MetadataCache() {
  {
    std::lock_guard lock(evicted_mu_);
    stopping_ = true;
  }
  evicted_cv_.notify_one();
  janitor_.join();
}

std::shared_ptr<const CachedMetadata> MetadataCache::Get(const std::string& location) {
  std::lock_guard lock(mu_);
  auto it = slots_.find(location);
  if (it == slots_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.position);
  return it->second.entry;
}

void MetadataCache::Put(const std::string& location, std::shared_ptr<const CachedMetadata> entry) {
  size_t cost = Cost(*entry);
  std::vector<std::shared_ptr<const CachedMetadata>> victims;
  {
    std::lock_guard lock(mu_);
    if (cost > budget_ || slots_.count(location)) return;
    lru_.push_front(location);
    slots_.emplace(location, Slot{std::move(entry), lru_.begin(), cost});
    used_ += cost;
    while (used_ > budget_ && !lru_.empty()) {
      auto victim = slots_.find(lru_.back());
      used_ -= victim->second.cost;
      victims.push_back(std::move(victim->second.entry));
      slots_.erase(victim);
      lru_.pop_back();
    }
  }
  if (victims.empty()) return;
  {
    std::lock_guard lock(evicted_mu_);
    for (auto& v : victims) {
      untrimmed_ += Cost(*v);
      evicted_.push_back(std::move(v));
    }
  }
  evicted_cv_.notify_one();
}

void MetadataCache::FreeEvicted() {
  std::unique_lock lock(evicted_mu_);
  for (;;) {
    evicted_cv_.wait(lock, [this] { return stopping_ || !evicted_.empty(); });
    if (evicted_.empty()) return;  // stopping, nothing left
    std::vector<std::shared_ptr<const CachedMetadata>> batch;
    batch.swap(evicted_);
    // Giving pages back walks the whole heap: worth it only once much has been freed.
    bool trim = untrimmed_ >= kTrimBytes;
    if (trim) untrimmed_ = 0;
    lock.unlock();
    batch.clear();              // frees the models nobody else holds any more
    if (trim) malloc_trim(0);   // and gives the freed pages back to the OS
    lock.lock();
  }
}

}  // namespace cairn::catalog
