#pragma once

// Per-request latencies and the summaries every subcommand prints as JSON.

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cairn::bench {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

inline double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Latencies in milliseconds plus status counts, merged from many threads after they finish
// (each thread owns its own Recorder; none is shared while running).
class Recorder {
 public:
  void Add(double ms) { ms_.push_back(ms); }
  void CountStatus(int status) { ++statuses_[status]; }
  void CountError(const std::string& what) { ++errors_[what]; }
  void Merge(const Recorder& other);

  size_t count() const { return ms_.size(); }
  // Nearest-rank percentile, p in [0, 100]; 0 when empty.
  double Percentile(double p) const;
  // {"count", "per_s", "p50_ms", "p99_ms", "max_ms", "mean_ms", "statuses", "errors"};
  // per_s = count / elapsed_s.
  Json Summary(double elapsed_s) const;

 private:
  mutable std::vector<double> ms_;
  mutable bool sorted_ = false;
  std::map<int, long> statuses_;
  std::map<std::string, long> errors_;
};

// Deadline and count bound shared by every loop: Done() once either is reached.
class Bound {
 public:
  Bound(double seconds, long max_count)
      : end_(Clock::now() + std::chrono::microseconds(static_cast<long>(seconds * 1e6))),
        max_count_(max_count) {}
  bool Expired() const { return Clock::now() >= end_; }
  long max_count() const { return max_count_; }

 private:
  Clock::time_point end_;
  long max_count_;
};

}  // namespace cairn::bench
