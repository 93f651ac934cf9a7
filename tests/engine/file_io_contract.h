#pragma once

// The FileIO contract: one suite of doctest template cases that every FileIO must pass.
//
// A backend type B is default-constructible and has `io` (the FileIO under test) and `root`
// (a location prefix of its own, empty at the start, that the cases write under). Instantiate
// the suite once per test binary with CAIRN_FILE_IO_CONTRACT(Backend1, Backend2, ...) at
// namespace scope inside namespace cairn::engine:
// tests/engine/file_io_test.cc does it for LocalFileIO and MemoryFileIO,
// tests/engine/s3_file_io_test.cc for S3FileIO against a real S3-compatible server.

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "engine/file_io.h"
#include "tests/engine/table_fixtures.h"

namespace cairn::engine::contract {

inline std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST_CASE_TEMPLATE_DEFINE("WriteNew then Read returns the bytes written", B, file_io_write_read) {
  B b;
  const std::string loc = b.root + "/db/t/metadata/00000.json";
  REQUIRE_OK(b.io.WriteNew(loc, R"({"format-version": 2})"));
  Result<std::string> got = b.io.Read(loc);
  REQUIRE_OK(got);
  CHECK(*got == R"({"format-version": 2})");

  // Binary content and a file larger than any single read buffer survive unchanged.
  std::string big(200 * 1024 + 7, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31 % 251);
  const std::string big_loc = b.root + "/db/t/data/big.bin";
  REQUIRE_OK(b.io.WriteNew(big_loc, big));
  Result<std::string> big_got = b.io.Read(big_loc);
  REQUIRE_OK(big_got);
  CHECK(big_got->size() == big.size());
  CHECK(*big_got == big);

  const std::string empty_loc = b.root + "/empty";
  REQUIRE_OK(b.io.WriteNew(empty_loc, ""));
  CHECK(b.io.Read(empty_loc).value().empty());
}

TEST_CASE_TEMPLATE_DEFINE("WriteNew of an existing location fails and keeps the first content", B,
                          file_io_write_existing) {
  B b;
  const std::string loc = b.root + "/v1.metadata.json";
  REQUIRE_OK(b.io.WriteNew(loc, "first"));
  CHECK_STATUS(b.io.WriteNew(loc, "second"), kAlreadyExists, "");
  Result<std::string> got = b.io.Read(loc);
  REQUIRE_OK(got);
  CHECK(*got == "first");
}

TEST_CASE_TEMPLATE_DEFINE("WriteNew from racing writers lets exactly one win", B,
                          file_io_write_race) {
  B b;
  const std::string loc = b.root + "/race/00001.json";
  constexpr int kWriters = 8;
  std::atomic<int> winners{0};
  std::atomic<int> losers{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      Status st = b.io.WriteNew(loc, "writer-" + std::to_string(i));
      if (st.ok()) {
        ++winners;
      } else if (st.code() == Status::Code::kAlreadyExists) {
        ++losers;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(winners.load() == 1);
  CHECK(losers.load() == kWriters - 1);
  Result<std::string> got = b.io.Read(loc);
  REQUIRE_OK(got);
  CHECK(got->rfind("writer-", 0) == 0);
  Result<std::vector<std::string>> listed = b.io.List(b.root + "/race");
  REQUIRE_OK(listed);
  CHECK(*listed == std::vector<std::string>{loc});  // no temporary files left behind
}

TEST_CASE_TEMPLATE_DEFINE("Delete removes a file and is idempotent", B, file_io_delete) {
  B b;
  const std::string loc = b.root + "/gone.json";
  REQUIRE_OK(b.io.WriteNew(loc, "x"));
  REQUIRE_OK(b.io.Delete(loc));
  CHECK_STATUS(b.io.Read(loc), kNotFound, "");
  REQUIRE_OK(b.io.Delete(loc));
  REQUIRE_OK(b.io.Delete(b.root + "/never/existed.json"));
  // The name is free again.
  REQUIRE_OK(b.io.WriteNew(loc, "y"));
  CHECK(b.io.Read(loc).value() == "y");
}

TEST_CASE_TEMPLATE_DEFINE("Exists tells present files from absent ones", B, file_io_exists) {
  B b;
  const std::string loc = b.root + "/a/b.json";
  Result<bool> before = b.io.Exists(loc);
  REQUIRE_OK(before);
  CHECK_FALSE(*before);
  REQUIRE_OK(b.io.WriteNew(loc, "x"));
  CHECK(b.io.Exists(loc).value());
  CHECK_FALSE(b.io.Exists(b.root + "/a/c.json").value());
  REQUIRE_OK(b.io.Delete(loc));
  CHECK_FALSE(b.io.Exists(loc).value());
}

TEST_CASE_TEMPLATE_DEFINE("List returns every file below a prefix, recursively", B, file_io_list) {
  B b;
  const std::vector<std::string> inside = {
      b.root + "/t/metadata/00000.json",
      b.root + "/t/metadata/00001.json",
      b.root + "/t/data/p=1/f1.parquet",
      b.root + "/t/data/p=2/deep/f2.parquet",
  };
  for (const std::string& loc : inside) REQUIRE_OK(b.io.WriteNew(loc, "x"));
  REQUIRE_OK(b.io.WriteNew(b.root + "/t2/metadata/00000.json", "sibling with a shared prefix"));
  REQUIRE_OK(b.io.WriteNew(b.root + "/other.json", "outside"));

  Result<std::vector<std::string>> all = b.io.List(b.root + "/t");
  REQUIRE_OK(all);
  CHECK(Sorted(*all) == Sorted(inside));

  Result<std::vector<std::string>> slash = b.io.List(b.root + "/t/");
  REQUIRE_OK(slash);
  CHECK(Sorted(*slash) == Sorted(inside));

  Result<std::vector<std::string>> meta = b.io.List(b.root + "/t/metadata");
  REQUIRE_OK(meta);
  CHECK(Sorted(*meta) == Sorted({inside[0], inside[1]}));
}

TEST_CASE_TEMPLATE_DEFINE("List of an absent prefix is empty", B, file_io_list_absent) {
  B b;
  Result<std::vector<std::string>> listed = b.io.List(b.root + "/nothing/here");
  REQUIRE_OK(listed);
  CHECK(listed->empty());
}

TEST_CASE_TEMPLATE_DEFINE("Read of a missing location is NotFound", B, file_io_read_missing) {
  B b;
  CHECK_STATUS(b.io.Read(b.root + "/missing.json"), kNotFound, "missing.json");
  CHECK_STATUS(b.io.Read(b.root + "/no/such/dir/missing.json"), kNotFound, "missing.json");
}

TEST_CASE_TEMPLATE_DEFINE("the store is a put-if-absent store", B, file_io_put_if_absent) {
  B b;
  CHECK(b.io.SupportsPutIfAbsent());
}

}  // namespace cairn::engine::contract

// Instantiates every contract case above for the backend types given. Use it at namespace
// scope inside namespace cairn::engine.
#define CAIRN_FILE_IO_CONTRACT(...)                               \
  namespace contract {                                            \
  TEST_CASE_TEMPLATE_INVOKE(file_io_write_read, __VA_ARGS__);     \
  TEST_CASE_TEMPLATE_INVOKE(file_io_write_existing, __VA_ARGS__); \
  TEST_CASE_TEMPLATE_INVOKE(file_io_write_race, __VA_ARGS__);     \
  TEST_CASE_TEMPLATE_INVOKE(file_io_delete, __VA_ARGS__);         \
  TEST_CASE_TEMPLATE_INVOKE(file_io_exists, __VA_ARGS__);         \
  TEST_CASE_TEMPLATE_INVOKE(file_io_list, __VA_ARGS__);           \
  TEST_CASE_TEMPLATE_INVOKE(file_io_list_absent, __VA_ARGS__);    \
  TEST_CASE_TEMPLATE_INVOKE(file_io_read_missing, __VA_ARGS__);   \
  TEST_CASE_TEMPLATE_INVOKE(file_io_put_if_absent, __VA_ARGS__);  \
  }
