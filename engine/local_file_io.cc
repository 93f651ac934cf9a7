#include "engine/local_file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace cairn::engine {
namespace {

Status Errno(const std::string& what, const std::string& path, int err) {
  std::string msg = what + " " + path + ": " + std::strerror(err);
  if (err == ENOENT) return Status::NotFound(msg);
  if (err == EEXIST) return Status::AlreadyExists(msg);
  return Status::IOError(msg);
}

std::string Dirname(const std::string& path) {
  auto pos = path.rfind('/');
  if (pos == std::string::npos || pos == 0) return "/";
  return path.substr(0, pos);
}

Status FsyncPath(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open directory", path, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  return rc == 0 ? Status::OK() : Errno("fsync directory", path, err);
}

// mkdir -p, fsyncing the parent of each directory it creates.
Status MakeDirs(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    return S_ISDIR(st.st_mode) ? Status::OK() : Status::IOError(dir + " is not a directory");
  }
  if (dir == "/") return Status::OK();
  RETURN_IF_ERROR(MakeDirs(Dirname(dir)));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return Errno("mkdir", dir, errno);
  return FsyncPath(Dirname(dir));
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("write", path, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

std::string TempName(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

Result<std::string> LocalPath(const std::string& location) {
  std::string_view s = location;
  if (s.rfind("file://", 0) == 0) {
    s.remove_prefix(7);
  } else if (s.rfind("file:", 0) == 0) {
    s.remove_prefix(5);
  }
  if (s.empty() || s[0] != '/') {
    return Status::InvalidArgument("not a local absolute location: " + location);
  }
  return std::string(s);
}

Result<std::string> LocalFileIO::Read(const std::string& location) {
  ASSIGN_OR_RETURN(std::string path, LocalPath(location));
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("open", path, errno);
  std::string out;
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return Errno("read", path, err);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Status LocalFileIO::WriteNew(const std::string& location, std::string_view data) {
  ASSIGN_OR_RETURN(std::string path, LocalPath(location));
  std::string dir = Dirname(path);
  RETURN_IF_ERROR(MakeDirs(dir));
  std::string tmp = TempName(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("create", tmp, errno);
  Status st = WriteAll(fd, data, tmp);
  if (st.ok() && ::fdatasync(fd) != 0) st = Errno("fsync", tmp, errno);
  ::close(fd);
  if (st.ok() && ::link(tmp.c_str(), path.c_str()) != 0) st = Errno("link", path, errno);
  ::unlink(tmp.c_str());
  if (!st.ok()) return st;
  Status synced = FsyncPath(dir);
  if (!synced.ok()) {
    ::unlink(path.c_str());
    return synced;
  }
  return Status::OK();
}

Status LocalFileIO::Delete(const std::string& location) {
  ASSIGN_OR_RETURN(std::string path, LocalPath(location));
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return Errno("delete", path, errno);
  return Status::OK();
}

Result<bool> LocalFileIO::Exists(const std::string& location) {
  ASSIGN_OR_RETURN(std::string path, LocalPath(location));
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  return Errno("stat", path, errno);
}

Result<std::vector<std::string>> LocalFileIO::List(const std::string& prefix) {
  ASSIGN_OR_RETURN(std::string root, LocalPath(prefix));
  std::string spelled = prefix;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  while (!spelled.empty() && spelled.back() == '/') spelled.pop_back();
  std::vector<std::string> out;
  std::vector<std::string> pending = {""};
  while (!pending.empty()) {
    std::string rel = std::move(pending.back());
    pending.pop_back();
    std::string dir = root + rel;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      if (errno == ENOENT || errno == ENOTDIR) continue;
      return Errno("list", dir, errno);
    }
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      std::string child = rel + "/" + name;
      struct stat st;
      if (::lstat((root + child).c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        pending.push_back(child);
      } else {
        out.push_back(spelled + child);
      }
    }
    ::closedir(d);
  }
  return out;
}

}  // namespace cairn::engine
