// FileIO: the contract suite (file_io_contract.h) run against LocalFileIO (in a fresh temporary
// directory) and MemoryFileIO (the oracle), plus what is particular to LocalFileIO and
// FaultyFileIO.

#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/faulty_file_io.h"
#include "engine/local_file_io.h"
#include "engine/memory_file_io.h"
#include "tests/engine/file_io_contract.h"
#include "tests/engine/table_fixtures.h"

namespace cairn::engine {
namespace {

namespace fs = std::filesystem;

// A LocalFileIO rooted in a directory of its own under the system temp dir, removed after.
struct LocalBackend {
  LocalBackend() {
    std::string pattern = (fs::temp_directory_path() / "cairn-file-io-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    dir = pattern;
    root = dir;
  }
  ~LocalBackend() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  LocalBackend(const LocalBackend&) = delete;
  LocalBackend& operator=(const LocalBackend&) = delete;

  std::string dir;
  std::string root;  // the location prefix the tests write under
  LocalFileIO io;
};

struct MemoryBackend {
  std::string root = "memory://bucket/warehouse";
  MemoryFileIO io;
};

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

CAIRN_FILE_IO_CONTRACT(LocalBackend, MemoryBackend);

namespace {

// --- LocalFileIO ------------------------------------------------------------------------------

TEST_CASE("LocalPath accepts file:/x, file:///x and /x and nothing else") {
  CHECK(LocalPath("file:/a/b").value() == "/a/b");
  CHECK(LocalPath("file:///a/b").value() == "/a/b");
  CHECK(LocalPath("/a/b").value() == "/a/b");
  CHECK_STATUS(LocalPath("s3://bucket/key"), kInvalidArgument, "s3://bucket/key");
  CHECK_STATUS(LocalPath("relative/path"), kInvalidArgument, "relative/path");
  CHECK_STATUS(LocalPath("file:relative"), kInvalidArgument, "file:relative");
  CHECK_STATUS(LocalPath(""), kInvalidArgument, "");
}

TEST_CASE("LocalFileIO reaches the same file through all three spellings") {
  LocalBackend b;
  const std::string path = b.dir + "/ns/t/metadata/00000.json";
  REQUIRE_OK(b.io.WriteNew("file:" + path, "hello"));
  CHECK(fs::exists(path));
  CHECK(b.io.Read(path).value() == "hello");
  CHECK(b.io.Read("file://" + path).value() == "hello");
  CHECK(b.io.Exists("file://" + path).value());
  CHECK_STATUS(b.io.WriteNew(path, "again"), kAlreadyExists, "");
  CHECK_STATUS(b.io.WriteNew("file://" + path, "again"), kAlreadyExists, "");
  REQUIRE_OK(b.io.Delete("file://" + path));
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("LocalFileIO lists with the scheme of the prefix") {
  LocalBackend b;
  REQUIRE_OK(b.io.WriteNew(b.dir + "/t/a.json", "a"));
  REQUIRE_OK(b.io.WriteNew(b.dir + "/t/sub/b.json", "b"));
  for (const std::string scheme : {"", "file:", "file://"}) {
    CAPTURE(scheme);
    Result<std::vector<std::string>> listed = b.io.List(scheme + b.dir + "/t");
    REQUIRE_OK(listed);
    CHECK(Sorted(*listed) ==
          Sorted({scheme + b.dir + "/t/a.json", scheme + b.dir + "/t/sub/b.json"}));
  }
}

TEST_CASE("LocalFileIO rejects locations of other schemes") {
  LocalBackend b;
  CHECK_STATUS(b.io.WriteNew("s3://bucket/key", "x"), kInvalidArgument, "s3://bucket/key");
  CHECK_STATUS(b.io.Read("s3://bucket/key"), kInvalidArgument, "s3://bucket/key");
  CHECK_STATUS(b.io.List("s3://bucket/"), kInvalidArgument, "s3://bucket/");
}

// --- FaultyFileIO -----------------------------------------------------------------------------

// Counts the calls that reach it, then forwards them to a MemoryFileIO.
class CountingFileIO final : public FileIO {
 public:
  Result<std::string> Read(const std::string& l) override {
    ++calls;
    return mem.Read(l);
  }
  Status WriteNew(const std::string& l, std::string_view d) override {
    ++calls;
    return mem.WriteNew(l, d);
  }
  Status Delete(const std::string& l) override {
    ++calls;
    return mem.Delete(l);
  }
  Result<bool> Exists(const std::string& l) override {
    ++calls;
    return mem.Exists(l);
  }
  Result<std::vector<std::string>> List(const std::string& p) override {
    ++calls;
    return mem.List(p);
  }
  bool SupportsPutIfAbsent() const override { return true; }

  int calls = 0;
  MemoryFileIO mem;
};

TEST_CASE("FaultyFileIO returns the injected status without calling through") {
  auto base = std::make_shared<CountingFileIO>();
  REQUIRE_OK(base->mem.WriteNew("mem://f", "content"));
  std::vector<FaultyFileIO::Op> seen;
  FaultyFileIO io(base, [&](FaultyFileIO::Op op, const std::string& location) {
    seen.push_back(op);
    return Status::IOError("injected at " + location);
  });
  CHECK_STATUS(io.Read("mem://f"), kIOError, "injected at mem://f");
  CHECK_STATUS(io.WriteNew("mem://g", "x"), kIOError, "injected at mem://g");
  CHECK_STATUS(io.Delete("mem://f"), kIOError, "injected");
  CHECK_STATUS(io.Exists("mem://f"), kIOError, "injected");
  CHECK_STATUS(io.List("mem://"), kIOError, "injected at mem://");
  CHECK(base->calls == 0);
  CHECK(seen == std::vector<FaultyFileIO::Op>{FaultyFileIO::Op::kRead,
                                              FaultyFileIO::Op::kWriteNew,
                                              FaultyFileIO::Op::kDelete,
                                              FaultyFileIO::Op::kExists,
                                              FaultyFileIO::Op::kList});
  CHECK(base->mem.size() == 1);  // the write did not happen, the delete did not happen
  CHECK(base->mem.Read("mem://f").value() == "content");
}

TEST_CASE("FaultyFileIO calls through when the fault function returns OK") {
  auto base = std::make_shared<CountingFileIO>();
  int faults_left = 1;
  FaultyFileIO io(base, [&](FaultyFileIO::Op op, const std::string&) {
    if (op == FaultyFileIO::Op::kWriteNew && faults_left > 0) {
      --faults_left;
      return Status::Unavailable("first write fails");
    }
    return Status::OK();
  });
  CHECK_STATUS(io.WriteNew("mem://a", "1"), kUnavailable, "first write fails");
  CHECK(base->calls == 0);
  REQUIRE_OK(io.WriteNew("mem://a", "2"));
  CHECK(io.Read("mem://a").value() == "2");
  CHECK(io.Exists("mem://a").value());
  REQUIRE_OK(io.Delete("mem://a"));
  CHECK(io.List("mem://").value().empty());
  CHECK(base->calls == 5);
  CHECK(io.SupportsPutIfAbsent());
}

}  // namespace
}  // namespace cairn::engine
