#pragma once

// MetadataCache: parsed metadata documents and their JSON text, keyed by file location.
//
// Metadata files are immutable, so an entry never goes stale; entries leave only when the
// byte budget is exceeded, least recently used first. An entry costs its JSON text plus the
// parsed model, estimated at five times the text (measured with malloc_trim on a table of
// 100 000 snapshots: ~350 MB live for 58 MB of JSON; snapshots and their summaries dominate).
// Evicted entries are freed on a thread of the cache's own, off the request path (a model of
// 100 000 snapshots takes ~0.2 s to free), which then hands freed memory back to the OS.
// Thread-safe.

#include <condition_variable>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/table_metadata.h"

namespace cairn::catalog {

// One metadata document: the model and its serialized form, made once and shared.
struct CachedMetadata {
  std::shared_ptr<const engine::TableMetadata> metadata;
  std::string json;

  // The `snapshots=refs` form of the document, made on first use and kept (clients that
  // reload after a conflict ask for it again and again).
  const std::string& RefsJson() const {
    std::call_once(refs_once_, [this] { refs_json_ = metadata->ToJsonRefsOnlyText(); });
    return refs_json_;
  }

 private:
  mutable std::once_flag refs_once_;
  mutable std::string refs_json_;
};

class MetadataCache {
 public:
  explicit MetadataCache(size_t budget_bytes);
  ~MetadataCache();

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
  static size_t Cost(const CachedMetadata& e) { return 256 + e.json.size() * 6; }
  void FreeEvicted();  // the janitor thread

  std::mutex mu_;
  size_t budget_;
  size_t used_ = 0;
  Lru lru_;  // front = most recently used
  std::unordered_map<std::string, Slot> slots_;

  std::mutex evicted_mu_;  // guards evicted_ and stopping_
  std::condition_variable evicted_cv_;
  std::vector<std::shared_ptr<const CachedMetadata>> evicted_;
  size_t untrimmed_ = 0;  // cost evicted since memory was last given back
  static constexpr size_t kTrimBytes = 64u << 20;
  bool stopping_ = false;
  std::thread janitor_;
};

}  // namespace cairn::catalog
