#include "stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cairn::bench {

void Recorder::Merge(const Recorder& other) {
  ms_.insert(ms_.end(), other.ms_.begin(), other.ms_.end());
  sorted_ = false;
  for (const auto& [k, v] : other.statuses_) statuses_[k] += v;
  for (const auto& [k, v] : other.errors_) errors_[k] += v;
}

double Recorder::Percentile(double p) const {
  if (ms_.empty()) return 0;
  if (!sorted_) {
    std::sort(ms_.begin(), ms_.end());
    sorted_ = true;
  }
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(ms_.size())));
  return ms_[std::min(ms_.size() - 1, rank == 0 ? 0 : rank - 1)];
}

Json Recorder::Summary(double elapsed_s) const {
  Json out;
  out["count"] = ms_.size();
  out["elapsed_s"] = elapsed_s;
  out["per_s"] = elapsed_s > 0 ? static_cast<double>(ms_.size()) / elapsed_s : 0.0;
  out["p50_ms"] = Percentile(50);
  out["p99_ms"] = Percentile(99);
  out["max_ms"] = Percentile(100);
  out["mean_ms"] = ms_.empty() ? 0.0 : std::accumulate(ms_.begin(), ms_.end(), 0.0) / ms_.size();
  Json statuses = Json::object();
  for (const auto& [k, v] : statuses_) statuses[std::to_string(k)] = v;
  out["statuses"] = statuses;
  Json errors = Json::object();
  for (const auto& [k, v] : errors_) errors[k] = v;
  out["errors"] = errors;
  return out;
}

}  // namespace cairn::bench
