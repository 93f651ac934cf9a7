#pragma once

// Clock and IdGenerator: the injected sources of time and identity.
//
// SystemClock / RandomIdGenerator are the defaults; ManualClock / SequentialIdGenerator make
// tests deterministic. All are thread-safe.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <string>

namespace cairn::engine {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch.
  virtual int64_t NowMillis() = 0;
};

class SystemClock final : public Clock {
 public:
  int64_t NowMillis() override;
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ms) : now_(start_ms) {}
  int64_t NowMillis() override { return now_.load(); }
  void Advance(int64_t ms) { now_ += ms; }

 private:
  std::atomic<int64_t> now_;
};

class IdGenerator {
 public:
  virtual ~IdGenerator() = default;
  // A new RFC 4122 version-4 UUID in canonical lowercase text.
  virtual std::string NewUuid() = 0;
};

class RandomIdGenerator final : public IdGenerator {
 public:
  RandomIdGenerator();
  std::string NewUuid() override;

 private:
  std::mutex mu_;
  std::mt19937_64 rng_;
};

// Yields 00000000-0000-4000-8000-000000000001, …2, …: predictable ids for tests.
class SequentialIdGenerator final : public IdGenerator {
 public:
  std::string NewUuid() override;

 private:
  std::atomic<uint64_t> next_{1};
};

}  // namespace cairn::engine
