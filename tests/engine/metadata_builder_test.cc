// MetadataBuilder: table-level updates (uuid, format version, schemas, specs, sort orders,
// location, properties, encryption keys), the metadata log, and what counts as a change.
// Snapshot, ref and statistics updates are in metadata_builder_snapshot_test.cc.

#include "engine/metadata_builder.h"

#include <doctest/doctest.h>

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

TableUpdate UJ(const Json& json) {
  Result<TableUpdate> u = TableUpdate::FromJson(json);
  REQUIRE_OK(u);
  return *u;
}

// Applies `updates` to `base` read from kBaseFile, then builds; the first error wins. A built
// table must read back as the same document.
Result<TableMetadata> Commit(const TableMetadata& base, const std::vector<TableUpdate>& updates) {
  MetadataBuilder b(base, kBaseFile, kNowMs);
  RETURN_IF_ERROR(b.ApplyAll(updates));
  Result<TableMetadata> built = b.Build();
  if (built.ok()) testing::CheckReadsBack(*built);
  return built;
}

// The base schema plus column 4, "extra".
constexpr const char* kAddExtraColumn = R"({"action": "add-schema", "schema": {
    "type": "struct", "schema-id": 42, "fields": [
      {"id": 1, "name": "id", "required": true, "type": "long"},
      {"id": 2, "name": "ts", "required": false, "type": "timestamptz"},
      {"id": 3, "name": "data", "required": false, "type": "string"},
      {"id": 4, "name": "extra", "required": false, "type": "int"}]}})";

// --- assign-uuid ------------------------------------------------------------------------------

TEST_CASE("assign-uuid replaces the table uuid") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(R"({"action": "assign-uuid", "uuid": "u-2"})")});
  REQUIRE_OK(m);
  CHECK(m->table_uuid == "u-2");
}

TEST_CASE("assign-uuid with an empty uuid leaves a table that cannot be built") {
  CHECK_STATUS(Commit(BaseTable(), {U(R"({"action": "assign-uuid", "uuid": ""})")}),
               kInvalidArgument, "uuid");
}

// --- upgrade-format-version -------------------------------------------------------------------

TEST_CASE("upgrade-format-version raises the format version") {
  Result<TableMetadata> m =
      Commit(BaseTable(), {U(R"({"action": "upgrade-format-version", "format-version": 3})")});
  REQUIRE_OK(m);
  CHECK(m->format_version == 3);
  CHECK(m->next_row_id == 0);
  CHECK(m->ToJson()["next-row-id"] == 0);
}

TEST_CASE("upgrade-format-version rejects a downgrade") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "upgrade-format-version", "format-version": 1})")),
               kInvalidArgument, "downgrade");
  CHECK_FALSE(b.changed());
}

TEST_CASE("upgrade-format-version rejects an unsupported version") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "upgrade-format-version", "format-version": 4})")),
               kInvalidArgument, "v4");
  CHECK_FALSE(b.changed());
}

// v1 snapshots may lack a summary (and so an operation); the spec makes it required from v2
// on. Java reads such snapshots in any version (SnapshotParser defaults what is absent), so an
// upgraded table stays loadable.
TEST_CASE("upgrade-format-version of a v1 table with v1-style snapshots stays readable") {
  Result<TableMetadata> v1 = TableMetadata::FromJsonText(R"({
    "format-version": 1, "table-uuid": "u-v1", "location": "s3://bucket/db/old",
    "last-updated-ms": 100, "last-column-id": 1,
    "schema": {"type": "struct", "fields": [
      {"id": 1, "name": "a", "required": true, "type": "long"}]},
    "partition-spec": [], "properties": {}, "current-snapshot-id": 5,
    "snapshots": [{"snapshot-id": 5, "timestamp-ms": 90,
                   "manifest-list": "s3://bucket/db/old/snap-5.avro"}]})");
  REQUIRE_OK(v1);
  Result<TableMetadata> m =
      Commit(*v1, {U(R"({"action": "upgrade-format-version", "format-version": 2})")});
  REQUIRE_OK(m);
  CHECK(m->format_version == 2);
  CHECK(m->current_snapshot_id == 5);
}

// --- add-schema / set-current-schema / remove-schemas -----------------------------------------

TEST_CASE("add-schema assigns the next schema id and grows last-column-id") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(kAddExtraColumn)});
  REQUIRE_OK(m);
  REQUIRE(m->schemas.size() == 2);
  CHECK(m->schemas[1].schema_id == 1);  // the id the client sent (42) is not used
  CHECK(m->last_column_id == 4);
  CHECK(m->current_schema_id == 0);  // adding does not make it current
}

TEST_CASE("add-schema assigns one more than the highest schema id") {
  TableMetadata base = BaseTable();
  Schema other = base.schemas[0];
  other.schema_id = 5;
  other.fields.erase(2);  // drop "data" so it differs from schema 0
  base.schemas.push_back(other);
  Result<TableMetadata> m = Commit(base, {U(kAddExtraColumn)});
  REQUIRE_OK(m);
  REQUIRE(m->FindSchema(6) != nullptr);
  CHECK(m->FindSchema(6)->FindField(4) != nullptr);
}

TEST_CASE("add-schema reuses an identical schema") {
  TableMetadata base = BaseTable();
  MetadataBuilder b(base, kBaseFile, kNowMs);
  REQUIRE_OK(b.Apply(UJ({{"action", "add-schema"}, {"schema", base.schemas[0].ToJson()}})));
  CHECK_FALSE(b.changed());
  // -1 now means the reused schema.
  REQUIRE_OK(b.Apply(U(R"({"action": "set-current-schema", "schema-id": -1})")));
  Result<TableMetadata> m = b.Build();
  REQUIRE_OK(m);
  CHECK(m->schemas.size() == 1);
  CHECK(m->current_schema_id == 0);
  CHECK(m->last_column_id == 3);
}

TEST_CASE("add-schema honours a larger deprecated last-column-id") {
  Json update = J(kAddExtraColumn);
  update["last-column-id"] = 10;
  Result<TableMetadata> m = Commit(BaseTable(), {UJ(update)});
  REQUIRE_OK(m);
  CHECK(m->last_column_id == 10);
}

TEST_CASE("add-schema rejects a schema with duplicate field ids") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "add-schema", "schema": {"type": "struct",
      "fields": [{"id": 1, "name": "a", "required": true, "type": "long"},
                 {"id": 1, "name": "b", "required": true, "type": "long"}]}})")),
               kInvalidArgument, "duplicate field id 1");
}

TEST_CASE("set-current-schema -1 selects the schema added last") {
  Result<TableMetadata> m =
      Commit(BaseTable(), {U(kAddExtraColumn),
                           U(R"({"action": "set-current-schema", "schema-id": -1})")});
  REQUIRE_OK(m);
  CHECK(m->current_schema_id == 1);
  REQUIRE(m->CurrentSchema() != nullptr);
  CHECK(m->CurrentSchema()->FindField(4) != nullptr);
}

TEST_CASE("set-current-schema accepts an existing id") {
  Result<TableMetadata> m = Commit(
      BaseTable(), {U(kAddExtraColumn), U(R"({"action": "set-current-schema", "schema-id": 1})"),
                    U(R"({"action": "set-current-schema", "schema-id": 0})")});
  REQUIRE_OK(m);
  CHECK(m->current_schema_id == 0);
}

TEST_CASE("set-current-schema rejects an unknown schema") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "set-current-schema", "schema-id": 7})")),
               kInvalidArgument, "unknown schema: 7");
  CHECK_STATUS(b.Apply(U(R"({"action": "set-current-schema", "schema-id": -1})")),
               kInvalidArgument, "no schema has been added");
}

TEST_CASE("remove-schemas drops schemas that are not current") {
  Result<TableMetadata> m =
      Commit(BaseTable(), {U(kAddExtraColumn),
                           U(R"({"action": "set-current-schema", "schema-id": -1})"),
                           U(R"({"action": "remove-schemas", "schema-ids": [0]})")});
  REQUIRE_OK(m);
  REQUIRE(m->schemas.size() == 1);
  CHECK(m->schemas[0].schema_id == 1);
  CHECK(m->last_column_id == 4);  // ids are never reused
}

TEST_CASE("remove-schemas rejects removing the current schema") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "remove-schemas", "schema-ids": [0]})")),
               kInvalidArgument, "current schema");
}

// --- add-spec / set-default-spec / remove-partition-specs -------------------------------------

TEST_CASE("add-spec assigns partition field ids after last-partition-id") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(R"({"action": "add-spec", "spec": {"fields": [
      {"source-id": 1, "name": "id_bucket", "transform": "bucket[16]"},
      {"source-id": 3, "name": "data", "transform": "identity"}]}})")});
  REQUIRE_OK(m);
  REQUIRE(m->specs.size() == 2);
  const PartitionSpec& spec = m->specs[1];
  CHECK(spec.spec_id == 1);
  REQUIRE(spec.fields.size() == 2);
  CHECK(spec.fields[0].field_id == 1001);
  CHECK(spec.fields[1].field_id == 1002);
  CHECK(m->last_partition_id == 1002);
  CHECK(m->default_spec_id == 0);
}

TEST_CASE("add-spec keeps the field ids the client assigned") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(R"({"action": "add-spec", "spec": {"fields": [
      {"source-id": 2, "field-id": 1000, "name": "ts_day", "transform": "day"},
      {"source-id": 1, "name": "id_bucket", "transform": "bucket[8]"}]}})")});
  REQUIRE_OK(m);
  REQUIRE(m->specs.size() == 2);
  CHECK(m->specs[1].fields[0].field_id == 1000);
  CHECK(m->specs[1].fields[1].field_id == 1001);
  CHECK(m->last_partition_id == 1001);
}

TEST_CASE("add-spec reuses an identical spec") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  REQUIRE_OK(b.Apply(U(R"({"action": "add-spec", "spec": {"spec-id": 3, "fields": [
      {"source-id": 2, "field-id": 1000, "name": "ts_day", "transform": "day"}]}})")));
  CHECK_FALSE(b.changed());
  REQUIRE_OK(b.Apply(U(R"({"action": "set-default-spec", "spec-id": -1})")));
  Result<TableMetadata> m = b.Build();
  REQUIRE_OK(m);
  CHECK(m->specs.size() == 1);
  CHECK(m->default_spec_id == 0);
  CHECK(m->last_partition_id == 1000);
}

// Java's TableMetadata.Builder reuses a spec that is compatibleWith() an existing one, which
// compares source ids, transforms and names but not partition field ids.
TEST_CASE("add-spec reuses an identical spec sent without field ids") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  REQUIRE_OK(b.Apply(U(R"({"action": "add-spec", "spec": {"fields": [
      {"source-id": 2, "name": "ts_day", "transform": "day"}]}})")));
  CHECK_FALSE(b.changed());
  Result<TableMetadata> m = b.Build();
  REQUIRE_OK(m);
  CHECK(m->specs.size() == 1);
  CHECK(m->last_partition_id == 1000);
}

TEST_CASE("add-spec rejects a field whose source column is not in the current schema") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "add-spec", "spec": {"fields": [
      {"source-id": 99, "name": "nope", "transform": "identity"}]}})")),
               kInvalidArgument, "source column for partition field: 99");
  CHECK_FALSE(b.changed());
}

TEST_CASE("set-default-spec -1 selects the spec added last") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(R"({"action": "add-spec", "spec": {"fields": [
      {"source-id": 1, "name": "id_bucket", "transform": "bucket[16]"}]}})"),
                                                 U(R"({"action": "set-default-spec", "spec-id": -1})")});
  REQUIRE_OK(m);
  CHECK(m->default_spec_id == 1);
  CHECK(m->ToJson()["default-spec-id"] == 1);
}

TEST_CASE("set-default-spec rejects an unknown spec") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "set-default-spec", "spec-id": 5})")), kInvalidArgument,
               "unknown spec: 5");
  CHECK_STATUS(b.Apply(U(R"({"action": "set-default-spec", "spec-id": -1})")), kInvalidArgument,
               "no spec has been added");
}

TEST_CASE("remove-partition-specs drops specs that are not the default") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(R"({"action": "add-spec", "spec": {"fields": [
      {"source-id": 1, "name": "id_bucket", "transform": "bucket[16]"}]}})"),
                                                 U(R"({"action": "set-default-spec", "spec-id": -1})"),
                                                 U(R"({"action": "remove-partition-specs", "spec-ids": [0]})")});
  REQUIRE_OK(m);
  REQUIRE(m->specs.size() == 1);
  CHECK(m->specs[0].spec_id == 1);
  CHECK(m->last_partition_id == 1001);
}

TEST_CASE("remove-partition-specs rejects removing the default spec") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "remove-partition-specs", "spec-ids": [0]})")),
               kInvalidArgument, "default partition spec");
}

// --- add-sort-order / set-default-sort-order --------------------------------------------------

constexpr const char* kSortByDataDesc = R"({"action": "add-sort-order", "sort-order": {
    "order-id": 9, "fields": [{"source-id": 3, "transform": "identity", "direction": "desc",
    "null-order": "nulls-last"}]}})";

TEST_CASE("add-sort-order gives a sorted order the next id from 1") {
  Result<TableMetadata> m = Commit(BaseTable(), {U(kSortByDataDesc)});
  REQUIRE_OK(m);
  REQUIRE(m->sort_orders.size() == 2);
  CHECK(m->sort_orders[1].order_id == 1);
  CHECK(m->sort_orders[1].fields[0] == SortField{3, "identity", "desc", "nulls-last"});
  CHECK(m->default_sort_order_id == 0);
}

TEST_CASE("add-sort-order reuses an identical order") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  REQUIRE_OK(b.Apply(U(kSortByDataDesc)));
  REQUIRE_OK(b.Apply(U(R"({"action": "add-sort-order", "sort-order": {"order-id": 1,
      "fields": [{"source-id": 1, "transform": "identity", "direction": "asc",
      "null-order": "nulls-first"}]}})")));
  REQUIRE_OK(b.Apply(U(kSortByDataDesc)));
  REQUIRE_OK(b.Apply(U(R"({"action": "set-default-sort-order", "sort-order-id": -1})")));
  Result<TableMetadata> m = b.Build();
  REQUIRE_OK(m);
  CHECK(m->sort_orders.size() == 3);
  CHECK(m->default_sort_order_id == 1);  // the reused order is the last added
}

TEST_CASE("add-sort-order gives the unsorted order id 0") {
  TableMetadata base = BaseTable();
  base.sort_orders = {SortOrder{4, {SortField{1, "identity", "asc", "nulls-first"}}}};
  base.default_sort_order_id = 4;
  Result<TableMetadata> m =
      Commit(base, {U(R"({"action": "add-sort-order", "sort-order": {"order-id": 7,
                         "fields": []}})"),
                    U(R"({"action": "set-default-sort-order", "sort-order-id": -1})")});
  REQUIRE_OK(m);
  CHECK(m->default_sort_order_id == 0);
  REQUIRE(m->FindSortOrder(0) != nullptr);
  CHECK(m->FindSortOrder(0)->IsUnsorted());
  CHECK(m->FindSortOrder(7) == nullptr);
}

TEST_CASE("add-sort-order rejects a field whose source column is not in the current schema") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "add-sort-order", "sort-order": {"order-id": 1,
      "fields": [{"source-id": 42, "transform": "identity", "direction": "asc",
      "null-order": "nulls-first"}]}})")),
               kInvalidArgument, "source column for sort field: 42");
  CHECK_FALSE(b.changed());
}

TEST_CASE("set-default-sort-order accepts an existing id") {
  Result<TableMetadata> m = Commit(
      BaseTable(),
      {U(kSortByDataDesc), U(R"({"action": "set-default-sort-order", "sort-order-id": 1})")});
  REQUIRE_OK(m);
  CHECK(m->default_sort_order_id == 1);
}

TEST_CASE("set-default-sort-order rejects an unknown order") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  CHECK_STATUS(b.Apply(U(R"({"action": "set-default-sort-order", "sort-order-id": 9})")),
               kInvalidArgument, "unknown order: 9");
  CHECK_STATUS(b.Apply(U(R"({"action": "set-default-sort-order", "sort-order-id": -1})")),
               kInvalidArgument, "no sort order has been added");
}

// --- set-location / set-properties / remove-properties ----------------------------------------

TEST_CASE("set-location moves the table") {
  Result<TableMetadata> m =
      Commit(BaseTable(), {U(R"({"action": "set-location", "location": "s3://other/t"})")});
  REQUIRE_OK(m);
  CHECK(m->location == "s3://other/t");
}

TEST_CASE("set-location rejects an empty location") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "set-location", "location": ""})")),
               kInvalidArgument, "location");
}

TEST_CASE("set-properties adds and overwrites properties") {
  Result<TableMetadata> m = Commit(
      BaseTable(), {U(R"({"action": "set-properties", "updates": {"owner": "bob", "k": "v"}})")});
  REQUIRE_OK(m);
  CHECK(m->properties ==
        Properties{{"owner", "bob"}, {"k", "v"}, {"commit.retry.num-retries", "4"}});
}

TEST_CASE("set-properties rejects a value that is not a string") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "set-properties",
                                          "updates": {"owner": null}})")),
               kInvalidArgument, "'owner'");
}

TEST_CASE("remove-properties removes the named properties") {
  Result<TableMetadata> m = Commit(
      BaseTable(), {U(R"({"action": "remove-properties", "removals": ["owner", "absent"]})")});
  REQUIRE_OK(m);
  CHECK(m->properties == Properties{{"commit.retry.num-retries", "4"}});
}

TEST_CASE("remove-properties rejects removals that are not strings") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "remove-properties",
                                          "removals": "owner"})")),
               kInvalidArgument, "removals");
}

// --- add-encryption-key / remove-encryption-key -----------------------------------------------

TEST_CASE("add-encryption-key and remove-encryption-key maintain the key list") {
  TableUpdate add = U(R"({"action": "add-encryption-key", "encryption-key": {
      "key-id": "k1", "encrypted-key-metadata": "AAAA", "properties": {"p": "q"}}})");
  Result<TableMetadata> m = Commit(BaseTable(), {add});
  REQUIRE_OK(m);
  REQUIRE(m->encryption_keys.size() == 1);
  CHECK(m->encryption_keys[0].key_id == "k1");
  Json keys = m->ToJson()["encryption-keys"];
  REQUIRE(keys.is_array());
  CHECK(keys[0]["properties"]["p"] == "q");

  Result<TableMetadata> removed =
      Commit(*m, {U(R"({"action": "remove-encryption-key", "key-id": "k1"})")});
  REQUIRE_OK(removed);
  CHECK(removed->encryption_keys.empty());
  CHECK_FALSE(removed->ToJson().contains("encryption-keys"));
}

TEST_CASE("add-encryption-key rejects a key without encrypted metadata") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "add-encryption-key",
                                          "encryption-key": {"key-id": "k1"}})")),
               kInvalidArgument, "encrypted-key-metadata");
}

TEST_CASE("remove-encryption-key of an unknown key changes nothing") {
  MetadataBuilder b(BaseTable(), kBaseFile, kNowMs);
  REQUIRE_OK(b.Apply(U(R"({"action": "remove-encryption-key", "key-id": "nope"})")));
  CHECK_FALSE(b.changed());
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "remove-encryption-key"})")),
               kInvalidArgument, "key-id");
}

// --- metadata log, last-updated-ms, changed() -------------------------------------------------

TEST_CASE("building from a base file appends that file to the metadata log") {
  TableMetadata base = BaseTable();
  Result<TableMetadata> m =
      Commit(base, {U(R"({"action": "set-properties", "updates": {"k": "v"}})")});
  REQUIRE_OK(m);
  REQUIRE(m->metadata_log.size() == 2);
  CHECK(m->metadata_log[0].metadata_file == base.metadata_log[0].metadata_file);
  CHECK(m->metadata_log[1].timestamp_ms == testing::kBaseUpdatedMs);
  CHECK(m->metadata_log[1].metadata_file == kBaseFile);
  CHECK(m->last_updated_ms == kNowMs);
}

TEST_CASE("a base without a file adds nothing to the metadata log") {
  MetadataBuilder b(BaseTable(), "", kNowMs);
  REQUIRE_OK(b.Apply(U(R"({"action": "set-properties", "updates": {"k": "v"}})")));
  Result<TableMetadata> m = b.Build();
  REQUIRE_OK(m);
  CHECK(m->metadata_log.size() == 1);
}

TEST_CASE("the metadata log is trimmed to write.metadata.previous-versions-max") {
  TableMetadata base = BaseTable();
  SUBCASE("a limit of 2 keeps the newest two entries") {
    for (int i = 1; i <= 3; ++i) {
      base.metadata_log.push_back({500 + i, "s3://bucket/db/t/metadata/old-" +
                                                std::to_string(i) + ".json"});
    }
    Result<TableMetadata> m = Commit(
        base, {U(R"({"action": "set-properties", "updates": {
                       "write.metadata.previous-versions-max": "2"}})")});
    REQUIRE_OK(m);
    REQUIRE(m->metadata_log.size() == 2);
    CHECK(m->metadata_log[0].metadata_file == "s3://bucket/db/t/metadata/old-3.json");
    CHECK(m->metadata_log[1].metadata_file == kBaseFile);
  }
  SUBCASE("a limit below 1 still keeps the previous file") {
    base.properties[MetadataBuilder::kPreviousVersionsMax] = "0";
    Result<TableMetadata> m =
        Commit(base, {U(R"({"action": "set-properties", "updates": {"k": "v"}})")});
    REQUIRE_OK(m);
    REQUIRE(m->metadata_log.size() == 1);
    CHECK(m->metadata_log[0].metadata_file == kBaseFile);
  }
  SUBCASE("the default limit is 100") {
    base.metadata_log.clear();
    for (int i = 0; i < 100; ++i) {
      base.metadata_log.push_back({i, "s3://bucket/db/t/metadata/v" + std::to_string(i)});
    }
    Result<TableMetadata> m =
        Commit(base, {U(R"({"action": "set-properties", "updates": {"k": "v"}})")});
    REQUIRE_OK(m);
    REQUIRE(m->metadata_log.size() == 100);
    CHECK(m->metadata_log.front().metadata_file == "s3://bucket/db/t/metadata/v1");
    CHECK(m->metadata_log.back().metadata_file == kBaseFile);
  }
}

TEST_CASE("updates that change nothing leave the builder unchanged") {
  TableMetadata base = BaseTable();
  MetadataBuilder b(base, kBaseFile, kNowMs);
  std::vector<TableUpdate> noops = {
      U(R"({"action": "assign-uuid", "uuid": "00000000-0000-4000-8000-00000000000a"})"),
      U(R"({"action": "upgrade-format-version", "format-version": 2})"),
      UJ({{"action", "add-schema"}, {"schema", base.schemas[0].ToJson()}}),
      U(R"({"action": "set-current-schema", "schema-id": 0})"),
      U(R"({"action": "remove-schemas", "schema-ids": [7]})"),
      UJ({{"action", "add-spec"}, {"spec", base.specs[0].ToJson()}}),
      U(R"({"action": "set-default-spec", "spec-id": 0})"),
      U(R"({"action": "remove-partition-specs", "spec-ids": [7]})"),
      U(R"({"action": "add-sort-order", "sort-order": {"order-id": 0, "fields": []}})"),
      U(R"({"action": "set-default-sort-order", "sort-order-id": 0})"),
      U(R"({"action": "set-snapshot-ref", "ref-name": "main", "type": "branch",
            "snapshot-id": 11})"),
      U(R"({"action": "remove-snapshot-ref", "ref-name": "absent"})"),
      U(R"({"action": "remove-snapshots", "snapshot-ids": [999]})"),
      U(R"({"action": "set-location", "location": "s3://bucket/db/t"})"),
      U(R"({"action": "remove-statistics", "snapshot-id": 999})"),
      U(R"({"action": "remove-partition-statistics", "snapshot-id": 999})"),
      U(R"({"action": "remove-encryption-key", "key-id": "absent"})"),
  };
  for (const TableUpdate& u : noops) {
    CAPTURE(u.action);
    REQUIRE_OK(b.Apply(u));
    CHECK_FALSE(b.changed());
  }
  Result<TableMetadata> m = b.Build();
  REQUIRE_OK(m);
  CHECK(m->ToJson() == base.ToJson());  // same last-updated-ms, same metadata log
}

TEST_CASE("set-properties and remove-properties that change nothing are not a change") {
  TableMetadata base = BaseTable();
  std::vector<TableUpdate> noops = {
      U(R"({"action": "set-properties", "updates": {}})"),
      U(R"({"action": "set-properties", "updates": {"owner": "alice"}})"),
      U(R"({"action": "remove-properties", "removals": []})"),
      U(R"({"action": "remove-properties", "removals": ["absent"]})"),
  };
  for (const TableUpdate& u : noops) {
    CAPTURE(u.action);
    MetadataBuilder b(base, kBaseFile, kNowMs);
    REQUIRE_OK(b.Apply(u));
    CHECK_FALSE(b.changed());
  }
}

TEST_CASE("an unchanged builder builds the base as it was") {
  TableMetadata base = BaseTable();
  MetadataBuilder b(base, kBaseFile, kNowMs);
  CHECK_FALSE(b.changed());
  Result<TableMetadata> m = b.Build();
  REQUIRE_OK(m);
  CHECK(m->last_updated_ms == testing::kBaseUpdatedMs);
  CHECK(m->metadata_log.size() == base.metadata_log.size());
  CHECK(m->ToJson() == base.ToJson());
}

// --- creating a table from Empty() ------------------------------------------------------------

TEST_CASE("a create commit builds a complete table from Empty") {
  MetadataBuilder b(MetadataBuilder::Empty(2), "", kNowMs);
  REQUIRE_OK(b.ApplyAll({
      U(R"({"action": "assign-uuid", "uuid": "u-new"})"),
      U(R"({"action": "upgrade-format-version", "format-version": 2})"),
      U(R"({"action": "add-schema", "last-column-id": 2, "schema": {"type": "struct",
            "schema-id": 0, "fields": [
            {"id": 1, "name": "a", "required": true, "type": "long"},
            {"id": 2, "name": "b", "required": false, "type": "string"}]}})"),
      U(R"({"action": "set-current-schema", "schema-id": -1})"),
      U(R"({"action": "add-spec", "spec": {"spec-id": 0, "fields": [
            {"source-id": 2, "name": "b", "transform": "identity"}]}})"),
      U(R"({"action": "set-default-spec", "spec-id": -1})"),
      U(R"({"action": "add-sort-order", "sort-order": {"order-id": 1, "fields": [
            {"source-id": 1, "transform": "identity", "direction": "asc",
             "null-order": "nulls-first"}]}})"),
      U(R"({"action": "set-default-sort-order", "sort-order-id": -1})"),
      U(R"({"action": "set-location", "location": "s3://bucket/db/new"})"),
      U(R"({"action": "set-properties", "updates": {"owner": "carol"}})"),
  }));
  CHECK(b.changed());
  Result<TableMetadata> m = b.Build();
  REQUIRE_OK(m);
  CHECK(m->table_uuid == "u-new");
  CHECK(m->current_schema_id == 0);
  CHECK(m->last_column_id == 2);
  CHECK(m->default_spec_id == 0);
  REQUIRE(m->specs.size() == 1);
  CHECK(m->specs[0].fields[0].field_id == 1000);
  CHECK(m->last_partition_id == 1000);
  CHECK(m->default_sort_order_id == 1);
  CHECK(m->last_updated_ms == kNowMs);
  CHECK(m->metadata_log.empty());
  CHECK_FALSE(m->current_snapshot_id.has_value());
  REQUIRE_OK(TableMetadata::FromJson(m->ToJson()));
}

TEST_CASE("Build rejects an incomplete table") {
  SUBCASE("no schema") {
    MetadataBuilder b(MetadataBuilder::Empty(2), "", kNowMs);
    REQUIRE_OK(b.Apply(U(R"({"action": "assign-uuid", "uuid": "u"})")));
    CHECK_STATUS(b.Build(), kInvalidArgument, "schema");
  }
  SUBCASE("no location") {
    TableMetadata base = BaseTable();
    base.location.clear();
    MetadataBuilder b(base, kBaseFile, kNowMs);
    CHECK_STATUS(b.Build(), kInvalidArgument, "location");
  }
}

}  // namespace
}  // namespace cairn::engine
