#pragma once

// MemoryFileIO: an in-process FileIO, the test oracle for FileIO behaviour.
// Locations are compared as plain strings. Thread-safe.

#include <map>
#include <mutex>

#include "engine/file_io.h"

namespace cairn::engine {

class MemoryFileIO final : public FileIO {
 public:
  Result<std::string> Read(const std::string& location) override;
  Status WriteNew(const std::string& location, std::string_view data) override;
  Status Delete(const std::string& location) override;
  Result<bool> Exists(const std::string& location) override;
  Result<std::vector<std::string>> List(const std::string& prefix) override;
  bool SupportsPutIfAbsent() const override { return true; }

  // Number of files held; for tests.
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> files_;
};

}  // namespace cairn::engine
