#pragma once

// Helpers shared by the catalog tests: readable failure output for name lists, status
// assertions that print the status, and a temporary directory removed when the test ends.

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/status.h"

namespace doctest {

template <>
struct StringMaker<std::vector<std::string>> {
  static String convert(const std::vector<std::string>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", \"" : "\"") + items[i] + "\"";
    return (out + "]").c_str();
  }
};

template <>
struct StringMaker<std::vector<std::vector<std::string>>> {
  static String convert(const std::vector<std::vector<std::string>>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += ", ";
      out += StringMaker<std::vector<std::string>>::convert(items[i]).c_str();
    }
    return (out + "]").c_str();
  }
};

}  // namespace doctest

namespace cairn::testing {

inline const engine::Status& StatusOf(const engine::Status& st) { return st; }
template <typename T>
const engine::Status& StatusOf(const engine::Result<T>& r) {
  return r.status();
}

}  // namespace cairn::testing

// Status (or Result) assertions that print the status when they fail.
#define CHECK_OK(expr)                                                      \
  do {                                                                      \
    const auto& _cairn_r = (expr);                                          \
    const ::cairn::engine::Status& _cairn_st = ::cairn::testing::StatusOf(_cairn_r); \
    CHECK_MESSAGE(_cairn_st.ok(), _cairn_st.ToString());                    \
  } while (0)
#define REQUIRE_OK(expr)                                                    \
  do {                                                                      \
    const auto& _cairn_r = (expr);                                          \
    const ::cairn::engine::Status& _cairn_st = ::cairn::testing::StatusOf(_cairn_r); \
    REQUIRE_MESSAGE(_cairn_st.ok(), _cairn_st.ToString());                  \
  } while (0)
// CHECK_CODE(expr, kCommitFailed): the status of `expr` has that code.
#define CHECK_CODE(expr, code_name)                                         \
  do {                                                                      \
    const auto& _cairn_r = (expr);                                          \
    const ::cairn::engine::Status& _cairn_st = ::cairn::testing::StatusOf(_cairn_r); \
    CHECK_MESSAGE(_cairn_st.code() == ::cairn::engine::Status::Code::code_name,     \
                  _cairn_st.ToString());                                    \
  } while (0)

namespace cairn::testing {

// A fresh directory under the system temporary directory, removed with everything in it when
// the object goes away.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "cairn-catalog-test-XXXXXX").string();
    char* made = ::mkdtemp(pattern.data());
    REQUIRE_MESSAGE(made != nullptr, "mkdtemp failed for " << pattern);
    path_ = made;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace cairn::testing
