#include "engine/memory_file_io.h"

namespace cairn::engine {

Result<std::string> MemoryFileIO::Read(const std::string& location) {
  std::lock_guard lock(mu_);
  auto it = files_.find(location);
  if (it == files_.end()) return Status::NotFound("no such file: " + location);
  return it->second;
}

Status MemoryFileIO::WriteNew(const std::string& location, std::string_view data) {
  std::lock_guard lock(mu_);
  if (!files_.emplace(location, std::string(data)).second) {
    return Status::AlreadyExists("file exists: " + location);
  }
  return Status::OK();
}

Status MemoryFileIO::Delete(const std::string& location) {
  std::lock_guard lock(mu_);
  files_.erase(location);
  return Status::OK();
}

Result<bool> MemoryFileIO::Exists(const std::string& location) {
  std::lock_guard lock(mu_);
  return files_.count(location) > 0;
}

Result<std::vector<std::string>> MemoryFileIO::List(const std::string& prefix) {
  std::string dir = prefix;
  if (!dir.empty() && dir.back() != '/') dir += '/';
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (auto it = files_.lower_bound(dir); it != files_.end(); ++it) {
    if (it->first.compare(0, dir.size(), dir) != 0) break;
    out.push_back(it->first);
  }
  return out;
}

size_t MemoryFileIO::size() const {
  std::lock_guard lock(mu_);
  return files_.size();
}

}  // namespace cairn::engine
