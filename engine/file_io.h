#pragma once

// FileIO: every file the server or engine touches goes through this interface.
//
// Locations are URIs ("file:/a/b", "file:///a/b", or a plain absolute path for local files;
// "s3://bucket/key" in S3). Implementations: LocalFileIO (POSIX), S3FileIO (S3 and compatible
// stores), MemoryFileIO (test oracle) and FaultyFileIO (wraps another to inject failures).
//
// Thread-safety: every implementation is safe for concurrent use.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace cairn::engine {

class FileIO {
 public:
  virtual ~FileIO() = default;

  // Returns the whole content. NotFound if absent, IOError on other failures.
  virtual Result<std::string> Read(const std::string& location) = 0;

  // Creates `location` holding `data`. AlreadyExists if it is present (never overwrites).
  // On OK the file and its name are durable. On error nothing is left at `location`.
  virtual Status WriteNew(const std::string& location, std::string_view data) = 0;

  // Removes `location`. OK if it was already absent.
  virtual Status Delete(const std::string& location) = 0;

  // True if `location` exists.
  virtual Result<bool> Exists(const std::string& location) = 0;

  // Every file at or below `prefix` (a directory-like prefix), in no particular order,
  // spelled with the same scheme as `prefix`. An absent prefix gives an empty list.
  virtual Result<std::vector<std::string>> List(const std::string& prefix) = 0;

  // True if WriteNew is an atomic put-if-absent on this store. When false (an S3-compatible
  // store without conditional writes), two racing WriteNew calls of one new location may both
  // succeed: callers write only fresh, uniquely named files.
  virtual bool SupportsPutIfAbsent() const = 0;
};

}  // namespace cairn::engine
