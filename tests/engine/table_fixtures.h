#pragma once

// Shared helpers for the engine tests: JSON literals, a base table to apply updates to, and
// assertions on Status / Result that print the status when they fail.

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "engine/json_util.h"
#include "engine/status.h"
#include "engine/table_metadata.h"
#include "engine/table_requirement.h"
#include "engine/table_update.h"

namespace cairn::engine::testing {

inline const Status& StatusOf(const Status& s) { return s; }
template <typename T>
const Status& StatusOf(const Result<T>& r) {
  return r.status();
}

}  // namespace cairn::engine::testing

// Fails the test case (REQUIRE) unless `expr` (a Status or Result) is OK.
#define REQUIRE_OK(expr)                                                    \
  do {                                                                      \
    const ::cairn::engine::Status _st = ::cairn::engine::testing::StatusOf(expr); \
    REQUIRE_MESSAGE(_st.ok(), _st.ToString());                              \
  } while (0)

// Checks that `expr` (a Status or Result) failed with Status::Code::`code_name` and that its
// message contains `needle`.
#define CHECK_STATUS(expr, code_name, needle)                                              \
  do {                                                                                \
    const ::cairn::engine::Status _st = ::cairn::engine::testing::StatusOf(expr);     \
    CHECK_MESSAGE(_st.code() == ::cairn::engine::Status::Code::code_name, _st.ToString()); \
    CHECK_MESSAGE(_st.message().find(needle) != std::string::npos,                     \
                  "expected \"" << (needle) << "\" in: " << _st.ToString());           \
  } while (0)

namespace cairn::engine::testing {

// Parses JSON written in a test; a typo in the test fails it.
inline Json J(std::string_view text) {
  Result<Json> json = ParseJson(text);
  REQUIRE_OK(json);
  return *json;
}

// Parses one update; REQUIRES it to be well formed.
inline TableUpdate U(std::string_view text) {
  Result<TableUpdate> u = TableUpdate::FromJson(J(text));
  REQUIRE_OK(u);
  return *u;
}

// Parses one requirement; REQUIRES it to be well formed.
inline TableRequirement R(std::string_view text) {
  Result<TableRequirement> r = TableRequirement::FromJson(J(text));
  REQUIRE_OK(r);
  return *r;
}

inline constexpr const char* kBaseUuid = "00000000-0000-4000-8000-00000000000a";
inline constexpr const char* kBaseLocation = "s3://bucket/db/t";
inline constexpr const char* kBaseFile = "s3://bucket/db/t/metadata/00001.json";
inline constexpr int64_t kBaseUpdatedMs = 2000;
inline constexpr int64_t kNowMs = 5000;

// A v2 table with schema 0 (id, ts, data), spec 0 (day(ts) as field 1000), the unsorted order
// 0, snapshots 10 <- 11 (main at 11, tag "v1" at 10), statistics for snapshot 10 and one
// metadata-log entry.
inline std::string BaseTableJson() {
  return R"({
    "format-version": 2,
    "table-uuid": "00000000-0000-4000-8000-00000000000a",
    "location": "s3://bucket/db/t",
    "last-sequence-number": 2,
    "last-updated-ms": 2000,
    "last-column-id": 3,
    "current-schema-id": 0,
    "schemas": [{"type": "struct", "schema-id": 0, "fields": [
      {"id": 1, "name": "id", "required": true, "type": "long"},
      {"id": 2, "name": "ts", "required": false, "type": "timestamptz"},
      {"id": 3, "name": "data", "required": false, "type": "string"}]}],
    "default-spec-id": 0,
    "partition-specs": [{"spec-id": 0, "fields": [
      {"source-id": 2, "field-id": 1000, "name": "ts_day", "transform": "day"}]}],
    "last-partition-id": 1000,
    "default-sort-order-id": 0,
    "sort-orders": [{"order-id": 0, "fields": []}],
    "properties": {"owner": "alice", "commit.retry.num-retries": "4"},
    "current-snapshot-id": 11,
    "snapshots": [
      {"snapshot-id": 10, "sequence-number": 1, "timestamp-ms": 1000,
       "manifest-list": "s3://bucket/db/t/metadata/snap-10.avro",
       "summary": {"operation": "append"}, "schema-id": 0},
      {"snapshot-id": 11, "parent-snapshot-id": 10, "sequence-number": 2, "timestamp-ms": 2000,
       "manifest-list": "s3://bucket/db/t/metadata/snap-11.avro",
       "summary": {"operation": "append"}, "schema-id": 0}],
    "refs": {"main": {"snapshot-id": 11, "type": "branch"},
             "v1": {"snapshot-id": 10, "type": "tag"}},
    "snapshot-log": [{"timestamp-ms": 1000, "snapshot-id": 10},
                     {"timestamp-ms": 2000, "snapshot-id": 11}],
    "metadata-log": [{"timestamp-ms": 500,
                      "metadata-file": "s3://bucket/db/t/metadata/00000.json"}],
    "statistics": [{"snapshot-id": 10, "statistics-path": "s3://bucket/db/t/stats/10.puffin",
                    "file-size-in-bytes": 100, "file-footer-size-in-bytes": 10,
                    "blob-metadata": []}],
    "partition-statistics": [{"snapshot-id": 10,
                              "statistics-path": "s3://bucket/db/t/stats/10.parquet",
                              "file-size-in-bytes": 50}]
  })";
}

// Whatever the engine writes it must be able to read: `m` survives ToJson -> FromJson -> ToJson.
inline void CheckReadsBack(const TableMetadata& m) {
  const Json doc = m.ToJson();
  Result<TableMetadata> reread = TableMetadata::FromJson(doc);
  CHECK_MESSAGE(reread.ok(), "written metadata does not read back: " << reread.status().ToString());
  if (reread.ok()) CHECK(reread->ToJson() == doc);
}

inline TableMetadata BaseTable() {
  Result<TableMetadata> m = TableMetadata::FromJsonText(BaseTableJson());
  REQUIRE_OK(m);
  return *m;
}

}  // namespace cairn::engine::testing
