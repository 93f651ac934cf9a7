#pragma once

// LocalFileIO: FileIO over a POSIX filesystem.
//
// WriteNew writes a temporary file in the target directory, fsyncs it, link()s it to the final
// name (atomic, fails if present), removes the temporary name and fsyncs the directory.
// Missing parent directories are created (and their parents fsync'd).

#include "engine/file_io.h"

namespace cairn::engine {

class LocalFileIO final : public FileIO {
 public:
  Result<std::string> Read(const std::string& location) override;
  Status WriteNew(const std::string& location, std::string_view data) override;
  Status Delete(const std::string& location) override;
  Result<bool> Exists(const std::string& location) override;
  Result<std::vector<std::string>> List(const std::string& prefix) override;
  bool SupportsPutIfAbsent() const override { return true; }
};

// Splits a local location into its filesystem path; InvalidArgument for other schemes.
// "file:/a", "file:///a" and "/a" all give "/a".
Result<std::string> LocalPath(const std::string& location);

}  // namespace cairn::engine
