// TableUpdate parsing: every action of the OpenAPI "TableUpdate" and the errors for malformed
// ones. What the updates do to a table is tested in metadata_builder_test.cc.

#include "engine/table_update.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/engine/table_fixtures.h"

namespace cairn::engine {
namespace {

using testing::J;
using testing::U;
using Kind = TableUpdate::Kind;

TEST_CASE("every update action of the REST spec parses to its kind") {
  struct Case {
    const char* json;
    Kind kind;
  };
  const Case cases[] = {
      {R"({"action": "assign-uuid", "uuid": "u-1"})", Kind::kAssignUuid},
      {R"({"action": "upgrade-format-version", "format-version": 3})",
       Kind::kUpgradeFormatVersion},
      {R"({"action": "add-schema", "schema": {"type": "struct", "fields": []}})",
       Kind::kAddSchema},
      {R"({"action": "set-current-schema", "schema-id": -1})", Kind::kSetCurrentSchema},
      {R"({"action": "remove-schemas", "schema-ids": [1]})", Kind::kRemoveSchemas},
      {R"({"action": "add-spec", "spec": {"fields": []}})", Kind::kAddSpec},
      {R"({"action": "set-default-spec", "spec-id": 0})", Kind::kSetDefaultSpec},
      {R"({"action": "remove-partition-specs", "spec-ids": [1]})", Kind::kRemovePartitionSpecs},
      {R"({"action": "add-sort-order", "sort-order": {"order-id": 1, "fields": []}})",
       Kind::kAddSortOrder},
      {R"({"action": "set-default-sort-order", "sort-order-id": 1})",
       Kind::kSetDefaultSortOrder},
      {R"({"action": "add-snapshot", "snapshot": {"snapshot-id": 1, "timestamp-ms": 5,
           "manifest-list": "s3://b/l.avro", "summary": {"operation": "append"}}})",
       Kind::kAddSnapshot},
      {R"({"action": "set-snapshot-ref", "ref-name": "main", "type": "branch",
           "snapshot-id": 1})",
       Kind::kSetSnapshotRef},
      {R"({"action": "remove-snapshots", "snapshot-ids": [1, 2]})", Kind::kRemoveSnapshots},
      {R"({"action": "remove-snapshot-ref", "ref-name": "dev"})", Kind::kRemoveSnapshotRef},
      {R"({"action": "set-location", "location": "s3://b/t"})", Kind::kSetLocation},
      {R"({"action": "set-properties", "updates": {"a": "1"}})", Kind::kSetProperties},
      {R"({"action": "remove-properties", "removals": ["a"]})", Kind::kRemoveProperties},
      {R"({"action": "set-statistics", "statistics": {"snapshot-id": 1,
           "statistics-path": "s3://b/s.puffin", "file-size-in-bytes": 1,
           "file-footer-size-in-bytes": 1, "blob-metadata": []}})",
       Kind::kSetStatistics},
      {R"({"action": "remove-statistics", "snapshot-id": 1})", Kind::kRemoveStatistics},
      {R"({"action": "set-partition-statistics", "partition-statistics": {"snapshot-id": 1,
           "statistics-path": "s3://b/p.parquet", "file-size-in-bytes": 1}})",
       Kind::kSetPartitionStatistics},
      {R"({"action": "remove-partition-statistics", "snapshot-id": 1})",
       Kind::kRemovePartitionStatistics},
      {R"({"action": "add-encryption-key", "encryption-key": {"key-id": "k1",
           "encrypted-key-metadata": "AAAA"}})",
       Kind::kAddEncryptionKey},
      {R"({"action": "remove-encryption-key", "key-id": "k1"})", Kind::kRemoveEncryptionKey},
  };
  for (const Case& c : cases) {
    CAPTURE(c.json);
    Json json = J(c.json);
    Result<TableUpdate> u = TableUpdate::FromJson(json);
    REQUIRE_OK(u);
    CHECK(u->kind == c.kind);
    CHECK(u->action == json["action"].get<std::string>());
  }
}

TEST_CASE("update payloads are carried into the parsed update") {
  CHECK(U(R"({"action": "assign-uuid", "uuid": "u-1"})").text == "u-1");
  CHECK(U(R"({"action": "upgrade-format-version", "format-version": 3})").number == 3);
  CHECK(U(R"({"action": "set-current-schema", "schema-id": -1})").number == -1);
  CHECK(U(R"({"action": "set-default-spec", "spec-id": 4})").number == 4);
  CHECK(U(R"({"action": "set-default-sort-order", "sort-order-id": 2})").number == 2);
  CHECK(U(R"({"action": "remove-schemas", "schema-ids": [1, 3]})").ids ==
        std::vector<int64_t>{1, 3});
  CHECK(U(R"({"action": "remove-partition-specs", "spec-ids": [2]})").ids ==
        std::vector<int64_t>{2});
  CHECK(U(R"({"action": "remove-snapshots", "snapshot-ids": [7, 8]})").ids ==
        std::vector<int64_t>{7, 8});
  CHECK(U(R"({"action": "remove-snapshot-ref", "ref-name": "dev"})").text == "dev");
  CHECK(U(R"({"action": "set-location", "location": "s3://b/t"})").text == "s3://b/t");
  CHECK(U(R"({"action": "set-properties", "updates": {"a": "1", "b": "2"}})").updates ==
        Properties{{"a", "1"}, {"b", "2"}});
  CHECK(U(R"({"action": "remove-properties", "removals": ["a", "b"]})").removals ==
        std::vector<std::string>{"a", "b"});
  CHECK(U(R"({"action": "remove-statistics", "snapshot-id": 9})").number == 9);
  CHECK(U(R"({"action": "remove-partition-statistics", "snapshot-id": 9})").number == 9);
  CHECK(U(R"({"action": "remove-encryption-key", "key-id": "k1"})").text == "k1");
}

TEST_CASE("add-schema carries the schema and the deprecated last-column-id") {
  TableUpdate u = U(R"({"action": "add-schema", "last-column-id": 7, "schema": {
      "type": "struct", "schema-id": 4, "identifier-field-ids": [1], "fields": [
        {"id": 1, "name": "a", "required": true, "type": "long"},
        {"id": 5, "name": "m", "required": false, "type": {"type": "map", "key-id": 6,
         "key": "string", "value-id": 7, "value": "long", "value-required": false}}]}})");
  REQUIRE(u.schema.has_value());
  CHECK(u.schema->schema_id == 4);
  CHECK(u.schema->highest_field_id == 7);
  CHECK(u.schema->identifier_field_ids == std::vector<int32_t>{1});
  CHECK(u.last_column_id == 7);
  CHECK_FALSE(U(R"({"action": "add-schema", "schema": {"type": "struct", "fields": []}})")
                  .last_column_id.has_value());
}

TEST_CASE("add-spec without a spec-id leaves it for the builder to assign") {
  TableUpdate u = U(R"({"action": "add-spec", "spec": {"fields": [
      {"source-id": 1, "name": "a_bucket", "transform": "bucket[16]"},
      {"source-id": 2, "field-id": 1003, "name": "b", "transform": "identity"}]}})");
  REQUIRE(u.spec.has_value());
  CHECK(u.spec->spec_id == -1);
  REQUIRE(u.spec->fields.size() == 2);
  CHECK_FALSE(u.spec->fields[0].field_id.has_value());
  CHECK(u.spec->fields[0].transform == "bucket[16]");
  CHECK(u.spec->fields[1].field_id == 1003);
}

TEST_CASE("add-sort-order carries its fields") {
  TableUpdate u = U(R"({"action": "add-sort-order", "sort-order": {"order-id": 1, "fields": [
      {"source-id": 2, "transform": "identity", "direction": "desc",
       "null-order": "nulls-last"}]}})");
  REQUIRE(u.sort_order.has_value());
  REQUIRE(u.sort_order->fields.size() == 1);
  CHECK(u.sort_order->fields[0] == SortField{2, "identity", "desc", "nulls-last"});
}

TEST_CASE("add-snapshot carries the snapshot and tolerates a missing sequence number") {
  TableUpdate u = U(R"({"action": "add-snapshot", "snapshot": {"snapshot-id": 12,
      "parent-snapshot-id": 11, "sequence-number": 3, "timestamp-ms": 3000,
      "manifest-list": "s3://b/snap-12.avro", "summary": {"operation": "overwrite"},
      "schema-id": 0}})");
  REQUIRE(u.snapshot.has_value());
  CHECK(u.snapshot->snapshot_id == 12);
  CHECK(u.snapshot->parent_snapshot_id == 11);
  CHECK(u.snapshot->sequence_number == 3);
  CHECK(u.snapshot->timestamp_ms == 3000);
  CHECK(u.snapshot->operation() == "overwrite");
  // A v1 writer sends no sequence number; the builder decides whether the table needs one.
  TableUpdate v1 = U(R"({"action": "add-snapshot", "snapshot": {"snapshot-id": 1,
      "timestamp-ms": 1, "manifest-list": "s3://b/l.avro"}})");
  CHECK(v1.snapshot->sequence_number == 0);
}

TEST_CASE("set-snapshot-ref carries the ref and its retention settings") {
  TableUpdate u = U(R"({"action": "set-snapshot-ref", "ref-name": "audit", "type": "branch",
      "snapshot-id": 11, "min-snapshots-to-keep": 2, "max-snapshot-age-ms": 100,
      "max-ref-age-ms": 200})");
  CHECK(u.text == "audit");
  REQUIRE(u.ref.has_value());
  CHECK(*u.ref == SnapshotRef{11, "branch", 2, 100, 200});
  TableUpdate tag =
      U(R"({"action": "set-snapshot-ref", "ref-name": "t", "type": "tag", "snapshot-id": 1})");
  CHECK_FALSE(tag.ref->is_branch());
}

TEST_CASE("statistics and encryption key updates keep the whole entry") {
  Json stats = J(R"({"snapshot-id": 10, "statistics-path": "s3://b/s.puffin",
      "file-size-in-bytes": 9, "file-footer-size-in-bytes": 3,
      "blob-metadata": [{"type": "ndv", "snapshot-id": 10, "sequence-number": 1,
                         "fields": [1]}]})");
  Json update = {{"action", "set-statistics"}, {"statistics", stats}};
  Result<TableUpdate> u = TableUpdate::FromJson(update);
  REQUIRE_OK(u);
  REQUIRE(u->entry.has_value());
  CHECK(u->entry->snapshot_id == 10);
  CHECK(u->entry->json == stats);

  TableUpdate key = U(R"({"action": "add-encryption-key", "encryption-key": {"key-id": "k1",
      "encrypted-key-metadata": "AAAA", "encrypted-by-id": "k0"}})");
  REQUIRE(key.entry.has_value());
  CHECK(key.entry->key_id == "k1");
  CHECK(key.entry->json["encrypted-by-id"] == "k0");
}

TEST_CASE("an unknown action is rejected naming it") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "add-view-version"})")), kInvalidArgument,
               "add-view-version");
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "frobnicate", "x": 1})")),
               kInvalidArgument, "frobnicate");
}

TEST_CASE("an update without an action is rejected") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"uuid": "u"})")), kInvalidArgument, "action");
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": 3})")), kInvalidArgument, "action");
  CHECK_STATUS(TableUpdate::FromJson(J(R"("assign-uuid")")), kInvalidArgument, "object");
}

TEST_CASE("an update missing a payload field is rejected naming the field") {
  struct Case {
    const char* json;
    const char* field;
  };
  const Case cases[] = {
      {R"({"action": "assign-uuid"})", "'uuid'"},
      {R"({"action": "upgrade-format-version"})", "'format-version'"},
      {R"({"action": "add-schema"})", "'schema'"},
      {R"({"action": "add-schema", "schema": {"fields": []}})", "'type'"},
      {R"({"action": "set-current-schema"})", "'schema-id'"},
      {R"({"action": "remove-schemas"})", "'schema-ids'"},
      {R"({"action": "add-spec"})", "'spec'"},
      {R"({"action": "add-spec", "spec": {"fields": [{"name": "a", "transform": "identity"}]}})",
       "'source-id'"},
      {R"({"action": "set-default-spec"})", "'spec-id'"},
      {R"({"action": "remove-partition-specs"})", "'spec-ids'"},
      {R"({"action": "add-sort-order"})", "'sort-order'"},
      {R"({"action": "add-sort-order", "sort-order": {"fields": []}})", "'order-id'"},
      {R"({"action": "set-default-sort-order"})", "'sort-order-id'"},
      {R"({"action": "add-snapshot"})", "'snapshot'"},
      {R"({"action": "add-snapshot", "snapshot": {"timestamp-ms": 1}})", "'snapshot-id'"},
      {R"({"action": "set-snapshot-ref", "type": "branch", "snapshot-id": 1})", "'ref-name'"},
      {R"({"action": "set-snapshot-ref", "ref-name": "main", "type": "branch"})",
       "'snapshot-id'"},
      {R"({"action": "set-snapshot-ref", "ref-name": "main", "snapshot-id": 1})", "'type'"},
      {R"({"action": "remove-snapshots"})", "'snapshot-ids'"},
      {R"({"action": "remove-snapshot-ref"})", "'ref-name'"},
      {R"({"action": "set-location"})", "'location'"},
      {R"({"action": "set-properties"})", "'updates'"},
      {R"({"action": "remove-properties"})", "'removals'"},
      {R"({"action": "set-statistics"})", "'statistics'"},
      {R"({"action": "set-statistics", "statistics": {"snapshot-id": 1,
           "file-size-in-bytes": 1}})",
       "'statistics-path'"},
      {R"({"action": "remove-statistics"})", "'snapshot-id'"},
      {R"({"action": "set-partition-statistics"})", "'partition-statistics'"},
      {R"({"action": "set-partition-statistics", "partition-statistics": {
           "statistics-path": "s3://b/p", "file-size-in-bytes": 1}})",
       "'snapshot-id'"},
      {R"({"action": "remove-partition-statistics"})", "'snapshot-id'"},
      {R"({"action": "add-encryption-key"})", "'encryption-key'"},
      {R"({"action": "add-encryption-key", "encryption-key": {"key-id": "k"}})",
       "'encrypted-key-metadata'"},
      {R"({"action": "remove-encryption-key"})", "'key-id'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.json);
    Json json = J(c.json);
    Result<TableUpdate> u = TableUpdate::FromJson(json);
    CHECK_STATUS(u, kInvalidArgument, c.field);
    // The message also says which update was malformed.
    CHECK_STATUS(u, kInvalidArgument, json["action"].get<std::string>());
  }
}

TEST_CASE("an update payload of the wrong type is rejected naming the field") {
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "assign-uuid", "uuid": 5})")),
               kInvalidArgument, "'uuid'");
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "remove-snapshots",
                                          "snapshot-ids": ["x"]})")),
               kInvalidArgument, "snapshot-ids");
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "set-properties",
                                          "updates": {"a": 1}})")),
               kInvalidArgument, "'a'");
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "remove-properties",
                                          "removals": [1]})")),
               kInvalidArgument, "removals");
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "set-current-schema",
                                          "schema-id": 4294967296})")),
               kInvalidArgument, "'schema-id'");
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "set-location", "location": ""})")),
               kInvalidArgument, "location");
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "set-snapshot-ref", "ref-name": "x",
                                          "type": "twig", "snapshot-id": 1})")),
               kInvalidArgument, "twig");
  CHECK_STATUS(TableUpdate::FromJson(J(R"({"action": "add-sort-order", "sort-order": {
      "order-id": 1, "fields": [{"source-id": 1, "transform": "identity",
      "direction": "up", "null-order": "nulls-first"}]}})")),
               kInvalidArgument, "up");
}

TEST_CASE("ParseTableUpdates parses a list and stops at the first bad entry") {
  Result<std::vector<TableUpdate>> ok = ParseTableUpdates(J(R"([
      {"action": "set-location", "location": "s3://b/t"},
      {"action": "remove-properties", "removals": []}])"));
  REQUIRE_OK(ok);
  REQUIRE(ok->size() == 2);
  CHECK((*ok)[0].kind == Kind::kSetLocation);
  CHECK((*ok)[1].kind == Kind::kRemoveProperties);
  CHECK_STATUS(ParseTableUpdates(J(R"([{"action": "set-location", "location": "s3://b/t"},
                                       {"action": "nope"}])")),
               kInvalidArgument, "nope");
  CHECK_STATUS(ParseTableUpdates(J(R"({"action": "set-location"})")), kInvalidArgument,
               "updates");
}

}  // namespace
}  // namespace cairn::engine
