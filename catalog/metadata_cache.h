#pragma once

// MetadataCache: parsed metadata documents and their JSON text, keyed by file location.
//
// Metadata files are immutable, so an entry never goes stale; entries leave only when the
// byte budget is exceeded, least recently used first. An entry costs its JSON text plus the
// parsed model, estimated at twice the text (measured: snapshots dominate, ~2 bytes of model
// per byte of JSON). Thread-safe.

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "engine/table_metadata.h"

namespace cairn::catalog {

// One metadata document: the model and its serialized form, made once and shared.
struct CachedMetadata {
  std::shared_ptr<const engine::TableMetadata> metadata;
  std::string json;
};

class MetadataCache {
 public:
  explicit MetadataCache(size_t budget_bytes) : budget_(budget_bytes) {}

  // The entry for `location`, or nullptr.
  std::shared_ptr<const CachedMetadata> Get(const std::string& location);
  void Put(const std::string& location, std::shared_ptr<const CachedMetadata> entry);

 private:
  using Lru = std::list<std::string>;
  struct Slot {
    std::shared_ptr<const CachedMetadata> entry;
    Lru::iterator position;
    size_t cost;
  };
  static size_t Cost(const CachedMetadata& e) { return 256 + e.json.size() * 3; }

  std::mutex mu_;
  size_t budget_;
  size_t used_ = 0;
  Lru lru_;  // front = most recently used
  std::unordered_map<std::string, Slot> slots_;
};

}  // namespace cairn::catalog
