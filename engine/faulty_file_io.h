#pragma once

// FaultyFileIO: wraps a FileIO and lets a test decide, per call, to fail it.
//
// The fault function sees the operation and location; a non-OK Status it returns is returned
// instead of calling the wrapped FileIO. Thread-safe if the fault function is.

#include <functional>
#include <memory>

#include "engine/file_io.h"

namespace cairn::engine {

class FaultyFileIO final : public FileIO {
 public:
  enum class Op { kRead, kWriteNew, kDelete, kExists, kList };
  using FaultFn = std::function<Status(Op op, const std::string& location)>;

  FaultyFileIO(std::shared_ptr<FileIO> base, FaultFn fault)
      : base_(std::move(base)), fault_(std::move(fault)) {}

  Result<std::string> Read(const std::string& location) override {
    RETURN_IF_ERROR(fault_(Op::kRead, location));
    return base_->Read(location);
  }
  Status WriteNew(const std::string& location, std::string_view data) override {
    RETURN_IF_ERROR(fault_(Op::kWriteNew, location));
    return base_->WriteNew(location, data);
  }
  Status Delete(const std::string& location) override {
    RETURN_IF_ERROR(fault_(Op::kDelete, location));
    return base_->Delete(location);
  }
  Result<bool> Exists(const std::string& location) override {
    RETURN_IF_ERROR(fault_(Op::kExists, location));
    return base_->Exists(location);
  }
  Result<std::vector<std::string>> List(const std::string& prefix) override {
    RETURN_IF_ERROR(fault_(Op::kList, prefix));
    return base_->List(prefix);
  }
  bool SupportsPutIfAbsent() const override { return base_->SupportsPutIfAbsent(); }

 private:
  std::shared_ptr<FileIO> base_;
  FaultFn fault_;
};

}  // namespace cairn::engine
