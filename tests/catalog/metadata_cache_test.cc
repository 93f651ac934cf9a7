// MetadataCache: a byte budget, least recently used out first, evicted entries freed off the
// caller's thread.

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "catalog/metadata_cache.h"
#include "tests/catalog/test_support.h"

namespace cairn::catalog {
namespace {

// An entry whose JSON text is `bytes` long (its cost: a few times that).
std::shared_ptr<const CachedMetadata> Entry(size_t bytes) {
  auto e = std::make_shared<CachedMetadata>();
  e->metadata = std::make_shared<const engine::TableMetadata>();
  e->json.assign(bytes, 'x');
  return e;
}

// True once nothing but `weak`'s own observers holds the entry, waiting up to a second for
// the cache's thread to let it go.
bool Freed(const std::weak_ptr<const CachedMetadata>& weak) {
  for (int i = 0; i < 1000 && !weak.expired(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return weak.expired();
}

TEST_CASE("entries stay within the budget, least recently used leaving first") {
  MetadataCache cache(64 * 1024);  // room for two entries of 4 KiB of text, not three
  cache.Put("a", Entry(4096));
  cache.Put("b", Entry(4096));
  REQUIRE(cache.Get("a") != nullptr);  // a is now the most recently used
  std::weak_ptr<const CachedMetadata> b = cache.Get("b");
  cache.Put("c", Entry(4096));
  for (int i = 0; i < 4; ++i) cache.Put("d" + std::to_string(i), Entry(4096));
  CHECK(cache.Get("a") == nullptr);
  CHECK(cache.Get("b") == nullptr);
  CHECK(cache.Get("d3") != nullptr);
  CHECK(Freed(b));
}

TEST_CASE("an entry larger than the whole budget is not kept") {
  MetadataCache cache(16 * 1024);
  auto big = Entry(1 << 20);
  std::weak_ptr<const CachedMetadata> weak = big;
  cache.Put("big", std::move(big));
  CHECK(cache.Get("big") == nullptr);
  CHECK(weak.expired());
}

TEST_CASE("an evicted entry that a reader still holds stays whole for that reader") {
  MetadataCache cache(40 * 1024);
  cache.Put("a", Entry(4096));
  std::shared_ptr<const CachedMetadata> held = cache.Get("a");
  for (int i = 0; i < 8; ++i) cache.Put("n" + std::to_string(i), Entry(4096));
  CHECK(cache.Get("a") == nullptr);
  REQUIRE(held != nullptr);
  CHECK(held->json.size() == 4096);
}

}  // namespace
}  // namespace cairn::catalog
