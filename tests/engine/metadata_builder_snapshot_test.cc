// MetadataBuilder: snapshot, ref and statistics updates (add-snapshot, set-snapshot-ref,
// remove-snapshots, remove-snapshot-ref, set/remove-statistics, set/remove-partition-
// statistics) and the snapshot log they maintain.

#include "engine/metadata_builder.h"

#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/engine/table_fixtures.h"

namespace cairn::engine {
namespace {

using testing::BaseTable;
using testing::J;
using testing::kBaseFile;
using testing::kNowMs;
using testing::U;

// Applies `updates` to `base` read from kBaseFile, then builds; the first error wins. A built
// table must read back as the same document.
Result<TableMetadata> Commit(const TableMetadata& base, const std::vector<TableUpdate>& updates) {
  MetadataBuilder b(base, kBaseFile, kNowMs);
  RETURN_IF_ERROR(b.ApplyAll(updates));
  Result<TableMetadata> built = b.Build();
  if (built.ok()) testing::CheckReadsBack(*built);
  return built;
}

// Snapshot 12, child of 11, sequence number 3, taken at 3000 ms.
constexpr const char* kAddSnapshot12 = R"({"action": "add-snapshot", "snapshot": {
    "snapshot-id": 12, "parent-snapshot-id": 11, "sequence-number": 3, "timestamp-ms": 3000,
    "manifest-list": "s3://bucket/db/t/metadata/snap-12.avro",
    "summary": {"operation": "append"}, "schema-id": 0}})";
constexpr const char* kMainTo12 =
    R"({"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": 12})";

std::vector<int64_t> SnapshotIds(const TableMetadata& m) {
  std::vector<int64_t> out;
  for (const auto& s : m.snapshots) out.push_back(s->snapshot_id);
  return out;
}

std::vector<int64_t> LogIds(const TableMetadata& m) {
  std::vector<int64_t> out;
  for (const SnapshotLogEntry& e : m.snapshot_log) out.push_back(e.snapshot_id);
  return out;
}

// --- add-snapshot -----------------------------------------------------------------------------

TEST_CASE("add-snapshot adds the snapshot and takes its sequence number and timestamp") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(kAddSnapshot12)});
  REQUIRE_OK(m);
  CHECK(SnapshotIds(*m) == std::vector<int64_t>{10, 11, 12});
  CHECK(m->last_sequence_number == 3);
  CHECK(m->last_updated_ms == 3000);  // the snapshot's time, not the builder's clock
  CHECK(m->current_snapshot_id == 11);  // not current until main points at it
  CHECK(m->metadata_log.back().metadata_file == kBaseFile);
}

TEST_CASE("add-snapshot rejects a snapshot id that already exists") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "add-snapshot", "snapshot": {"snapshot-id": 11,
      "parent-snapshot-id": 10, "sequence-number": 5, "timestamp-ms": 3000,
      "manifest-list": "s3://b/x.avro", "summary": {"operation": "append"}}})")),
               kInvalidArgument, "already exists for id: 11");
  CHECK_FALSE(b.changed());
}

TEST_CASE("add-snapshot with a stale sequence number is a commit conflict") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);  // last-sequence-number 2
  Status st = b.Apply(U(R"({"action": "add-snapshot", "snapshot": {"snapshot-id": 12,
      "parent-snapshot-id": 11, "sequence-number": 2, "timestamp-ms": 3000,
      "manifest-list": "s3://b/x.avro", "summary": {"operation": "append"}}})"));
  CHECK_STATUS(st, kCommitFailed, "sequence number 2");
  CHECK_FALSE(b.changed());
}

TEST_CASE("add-snapshot accepts an old sequence number for a snapshot without a parent") {
  Result<TableMetadata> m =
      Commit(BaseTable(), {U(R"({"action": "add-snapshot", "snapshot": {"snapshot-id": 20,
          "sequence-number": 1, "timestamp-ms": 3000, "manifest-list": "s3://b/x.avro",
          "summary": {"operation": "append"}}})")});
  REQUIRE_OK(m);
  CHECK(m->FindSnapshot(20) != nullptr);
  CHECK(m->last_sequence_number == 2);  // never goes backwards
}

TEST_CASE("add-snapshot to a v2 table rejects a snapshot without an operation") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "add-snapshot", "snapshot": {"snapshot-id": 12,
      "parent-snapshot-id": 11, "sequence-number": 3, "timestamp-ms": 3000,
      "manifest-list": "s3://b/x.avro"}})")),
               kInvalidArgument, "operation");
}

// Snapshot::FromJson requires manifest-list in v2+ documents, so a snapshot without one must
// not get into a v2 table: the next load of the table would fail.
TEST_CASE("add-snapshot to a v2 table rejects a snapshot without a manifest list") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "add-snapshot", "snapshot": {"snapshot-id": 12,
      "parent-snapshot-id": 11, "sequence-number": 3, "timestamp-ms": 3000,
      "manifests": ["s3://b/m1.avro"], "summary": {"operation": "append"}}})")),
               kInvalidArgument, "manifest-list");
  CHECK_FALSE(b.changed());
}

TEST_CASE("add-snapshot to a v1 table accepts a snapshot without a sequence number") {
  TableMetadata base = BaseTable();
  base.format_version = 1;
  Result<TableMetadata> m = Commit(base, {U(R"({"action": "add-snapshot", "snapshot": {
      "snapshot-id": 12, "parent-snapshot-id": 11, "timestamp-ms": 3000,
      "manifest-list": "s3://b/x.avro"}})")});
  REQUIRE_OK(m);
  CHECK(m->FindSnapshot(12) != nullptr);
}

TEST_CASE("add-snapshot to a v3 table advances next-row-id") {
  Result<TableMetadata> m =
      Commit(BaseTable(), {U(R"({"action": "upgrade-format-version", "format-version": 3})"),
                           U(R"({"action": "add-snapshot", "snapshot": {"snapshot-id": 12,
          "parent-snapshot-id": 11, "sequence-number": 3, "timestamp-ms": 3000,
          "manifest-list": "s3://b/x.avro", "summary": {"operation": "append"},
          "first-row-id": 0, "added-rows": 25}})")});
  REQUIRE_OK(m);
  CHECK(m->next_row_id == 25);
  Json snap = m->ToJson()["snapshots"][2];
  CHECK(snap["first-row-id"] == 0);
  CHECK(snap["added-rows"] == 25);
}

TEST_CASE("add-snapshot to a v3 table rejects a first-row-id behind next-row-id") {
  TableMetadata base = BaseTable();
  base.format_version = 3;
  base.next_row_id = 100;
  MetadataBuilder b(base, kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "add-snapshot", "snapshot": {"snapshot-id": 12,
      "parent-snapshot-id": 11, "sequence-number": 3, "timestamp-ms": 3000,
      "manifest-list": "s3://b/x.avro", "summary": {"operation": "append"},
      "first-row-id": 40, "added-rows": 5}})")),
               kCommitFailed, "first-row-id");
}

// --- set-snapshot-ref -------------------------------------------------------------------------

TEST_CASE("set-snapshot-ref of main moves the current snapshot and logs it") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(kAddSnapshot12), U(kMainTo12)});
  REQUIRE_OK(m);
  CHECK(m->current_snapshot_id == 12);
  CHECK(m->refs.at("main").snapshot_id == 12);
  REQUIRE(m->snapshot_log.size() == 3);
  CHECK(m->snapshot_log.back().snapshot_id == 12);
  CHECK(m->snapshot_log.back().timestamp_ms == 3000);
  CHECK(m->last_updated_ms == 3000);
  CHECK(m->ToJson()["current-snapshot-id"] == 12);
}

TEST_CASE("set-snapshot-ref of main to an older snapshot logs the commit time") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(R"({"action": "set-snapshot-ref",
      "ref-name": "main", "type": "branch", "snapshot-id": 10})")});
  REQUIRE_OK(m);
  CHECK(m->current_snapshot_id == 10);
  CHECK(LogIds(*m) == std::vector<int64_t>{10, 11, 10});
  CHECK(m->snapshot_log.back().timestamp_ms == kNowMs);
  CHECK(m->last_updated_ms == kNowMs);
}

TEST_CASE("set-snapshot-ref rejects an unknown snapshot") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "set-snapshot-ref", "ref-name": "main",
                           "type": "branch", "snapshot-id": 99})")),
               kInvalidArgument, "unknown snapshot: 99");
  CHECK_FALSE(b.changed());
}

TEST_CASE("set-snapshot-ref creates a tag without moving the current snapshot") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(R"({"action": "set-snapshot-ref",
      "ref-name": "release", "type": "tag", "snapshot-id": 10, "max-ref-age-ms": 60000})")});
  REQUIRE_OK(m);
  REQUIRE(m->refs.count("release") == 1);
  CHECK(m->refs.at("release") == SnapshotRef{10, "tag", std::nullopt, std::nullopt, 60000});
  CHECK(m->current_snapshot_id == 11);
  CHECK(LogIds(*m) == std::vector<int64_t>{10, 11});
  CHECK(m->ToJson()["refs"]["release"] ==
        J(R"({"snapshot-id": 10, "type": "tag", "max-ref-age-ms": 60000})"));
}

TEST_CASE("set-snapshot-ref of another branch leaves main alone") {
  Result<TableMetadata> m = Commit(
      BaseTable(),
      {U(kAddSnapshot12),
       U(R"({"action": "set-snapshot-ref", "ref-name": "dev", "type": "branch",
             "snapshot-id": 12})")});
  REQUIRE_OK(m);
  CHECK(m->refs.at("dev").snapshot_id == 12);
  CHECK(m->current_snapshot_id == 11);
  CHECK(LogIds(*m) == std::vector<int64_t>{10, 11});
}

TEST_CASE("set-snapshot-ref rejects main as a tag") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "set-snapshot-ref", "ref-name": "main", "type": "tag",
                           "snapshot-id": 10})")),
               kInvalidArgument, "main");
}

// --- remove-snapshots -------------------------------------------------------------------------

TEST_CASE("remove-snapshots drops refs, statistics and history of the removed snapshots") {
  Result<TableMetadata> m =
      Commit(BaseTable(), {U(R"({"action": "remove-snapshots", "snapshot-ids": [10]})")});
  REQUIRE_OK(m);
  CHECK(SnapshotIds(*m) == std::vector<int64_t>{11});
  CHECK(m->refs.count("v1") == 0);  // the tag pointed at 10
  CHECK(m->refs.at("main").snapshot_id == 11);
  CHECK(m->current_snapshot_id == 11);
  CHECK(m->statistics.empty());
  CHECK(m->partition_statistics.empty());
  CHECK(LogIds(*m) == std::vector<int64_t>{11});
  Json doc = m->ToJson();
  CHECK(doc["statistics"] == Json::array());
  CHECK(doc["partition-statistics"] == Json::array());
}

TEST_CASE("remove-snapshots drops the snapshot log up to the last removed entry") {
  Result<TableMetadata> with12 = Commit(BaseTable(), {U(kAddSnapshot12), U(kMainTo12)});
  REQUIRE_OK(with12);
  REQUIRE(LogIds(*with12) == std::vector<int64_t>{10, 11, 12});
  Result<TableMetadata> m =
      Commit(*with12, {U(R"({"action": "remove-snapshots", "snapshot-ids": [11]})")});
  REQUIRE_OK(m);
  // 10 survives, but a log of 10 then 12 would claim 10 was current until 12.
  CHECK(LogIds(*m) == std::vector<int64_t>{12});
  CHECK(SnapshotIds(*m) == std::vector<int64_t>{10, 12});
}

TEST_CASE("remove-snapshots of the current snapshot clears main") {
  Result<TableMetadata> m =
      Commit(BaseTable(), {U(R"({"action": "remove-snapshots", "snapshot-ids": [11]})")});
  REQUIRE_OK(m);
  CHECK_FALSE(m->current_snapshot_id.has_value());
  CHECK(m->refs.count("main") == 0);
  CHECK(m->refs.count("v1") == 1);
  CHECK(m->ToJson()["current-snapshot-id"] == -1);
  CHECK(LogIds(*m).empty());
}

TEST_CASE("remove-snapshots rejects ids that are not integers") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "remove-snapshots",
                                          "snapshot-ids": [10, "11"]})")),
               kInvalidArgument, "snapshot-ids");
}

// --- remove-snapshot-ref ----------------------------------------------------------------------

TEST_CASE("remove-snapshot-ref of main clears the current snapshot") {
  Result<TableMetadata> m =
      Commit(BaseTable(), {U(R"({"action": "remove-snapshot-ref", "ref-name": "main"})")});
  REQUIRE_OK(m);
  CHECK_FALSE(m->current_snapshot_id.has_value());
  CHECK(m->refs.count("main") == 0);
  CHECK(SnapshotIds(*m) == std::vector<int64_t>{10, 11});  // snapshots stay
  CHECK(m->ToJson()["current-snapshot-id"] == -1);
}

TEST_CASE("remove-snapshot-ref of a tag keeps the current snapshot") {
  Result<TableMetadata> m =
      Commit(BaseTable(), {U(R"({"action": "remove-snapshot-ref", "ref-name": "v1"})")});
  REQUIRE_OK(m);
  CHECK(m->refs.count("v1") == 0);
  CHECK(m->current_snapshot_id == 11);
}

TEST_CASE("remove-snapshot-ref rejects an update without a ref name") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "remove-snapshot-ref", "ref-name": 1})")),
               kInvalidArgument, "ref-name");
}

// --- statistics -------------------------------------------------------------------------------

TEST_CASE("set-statistics adds or replaces the statistics of a snapshot") {
  Result<TableMetadata> m = Commit(
      BaseTable(),
      {U(R"({"action": "set-statistics", "statistics": {"snapshot-id": 11,
           "statistics-path": "s3://b/11.puffin", "file-size-in-bytes": 7,
           "file-footer-size-in-bytes": 2, "blob-metadata": []}})"),
       U(R"({"action": "set-statistics", "statistics": {"snapshot-id": 10,
           "statistics-path": "s3://b/10-v2.puffin", "file-size-in-bytes": 8,
           "file-footer-size-in-bytes": 2, "blob-metadata": []}})")});
  REQUIRE_OK(m);
  REQUIRE(m->statistics.size() == 2);
  Json stats = m->ToJson()["statistics"];
  std::map<int64_t, std::string> paths;
  for (const Json& s : stats) {
    paths[s["snapshot-id"].get<int64_t>()] = s["statistics-path"].get<std::string>();
  }
  CHECK(paths == std::map<int64_t, std::string>{{10, "s3://b/10-v2.puffin"},
                                                {11, "s3://b/11.puffin"}});
}

TEST_CASE("set-statistics rejects statistics without a path") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "set-statistics", "statistics": {
                   "snapshot-id": 11, "file-size-in-bytes": 7}})")),
               kInvalidArgument, "statistics-path");
}

TEST_CASE("remove-statistics removes the statistics of a snapshot") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  REQUIRE_OK(b.Apply(U(R"({"action": "remove-statistics", "snapshot-id": 11})")));
  CHECK_FALSE(b.changed());  // there were none for 11
  REQUIRE_OK(b.Apply(U(R"({"action": "remove-statistics", "snapshot-id": 10})")));
  CHECK(b.changed());
  Result<TableMetadata> m = b.Build();
  REQUIRE_OK(m);
  CHECK(m->statistics.empty());
  CHECK(m->partition_statistics.size() == 1);
}

TEST_CASE("remove-statistics rejects a missing snapshot id") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "remove-statistics"})")), kInvalidArgument,
               "snapshot-id");
}

TEST_CASE("set-partition-statistics adds or replaces the partition statistics of a snapshot") {
  Result<TableMetadata> m = Commit(
      BaseTable(),
      {U(R"({"action": "set-partition-statistics", "partition-statistics": {
           "snapshot-id": 10, "statistics-path": "s3://b/10-v2.parquet",
           "file-size-in-bytes": 60}})"),
       U(R"({"action": "set-partition-statistics", "partition-statistics": {
           "snapshot-id": 11, "statistics-path": "s3://b/11.parquet",
           "file-size-in-bytes": 70}})")});
  REQUIRE_OK(m);
  REQUIRE(m->partition_statistics.size() == 2);
  CHECK(m->partition_statistics[0].json["statistics-path"] == "s3://b/10-v2.parquet");
  CHECK(m->partition_statistics[1].snapshot_id == 11);
  CHECK(m->statistics.size() == 1);  // table statistics untouched
}

TEST_CASE("set-partition-statistics rejects an entry without a file size") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "set-partition-statistics",
                   "partition-statistics": {"snapshot-id": 11,
                   "statistics-path": "s3://b/11.parquet"}})")),
               kInvalidArgument, "file-size-in-bytes");
}

TEST_CASE("remove-partition-statistics removes the partition statistics of a snapshot") {
  Result<TableMetadata> m = Commit(
      BaseTable(), {U(R"({"action": "remove-partition-statistics", "snapshot-id": 10})")});
  REQUIRE_OK(m);
  CHECK(m->partition_statistics.empty());
  CHECK(m->statistics.size() == 1);
}

TEST_CASE("remove-partition-statistics rejects a snapshot id that is not an integer") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "remove-partition-statistics",
                                          "snapshot-id": "10"})")),
               kInvalidArgument, "snapshot-id");
}

}  // namespace
}  // namespace cairn::engine
