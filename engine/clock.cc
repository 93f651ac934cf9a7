#include "engine/clock.h"

#include <chrono>
#include <cstdio>

namespace cairn::engine {
namespace {

std::string FormatUuid(uint64_t hi, uint64_t lo) {
  hi = (hi & ~0xF000ULL) | 0x4000ULL;                        // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xFFFF),
                static_cast<unsigned>(hi & 0xFFFF), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

}  // namespace

int64_t SystemClock::NowMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

RandomIdGenerator::RandomIdGenerator() {
  std::random_device rd;
  std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
  rng_.seed(seq);
}

std::string RandomIdGenerator::NewUuid() {
  std::lock_guard lock(mu_);
  uint64_t hi = rng_();
  uint64_t lo = rng_();
  return FormatUuid(hi, lo);
}

std::string SequentialIdGenerator::NewUuid() {
  uint64_t n = next_++;
  return FormatUuid(0, n);
}

}  // namespace cairn::engine
