// NewTableMetadata: the first metadata of a table created by a create-table request — fresh
// ids for every field at every depth, remapped partition and sort sources, and the format
// version taken from the "format-version" property.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/metadata_builder.h"
#include "tests/engine/table_fixtures.h"

namespace cairn::engine {
namespace {

using testing::J;

// Field ids as a client may send them: arbitrary, with nested struct, list and map types.
constexpr const char* kRequestSchema = R"({"type": "struct", "schema-id": 7,
  "identifier-field-ids": [10],
  "fields": [
    {"id": 10, "name": "id", "required": true, "type": "long"},
    {"id": 20, "name": "point", "required": false, "type": {"type": "struct", "fields": [
      {"id": 21, "name": "x", "required": true, "type": "double"},
      {"id": 22, "name": "y", "required": true, "type": "double"}]}},
    {"id": 30, "name": "tags", "required": false, "type": {"type": "list",
      "element-id": 31, "element": "string", "element-required": false}},
    {"id": 40, "name": "attrs", "required": false, "type": {"type": "map",
      "key-id": 41, "key": "string", "value-id": 42, "value-required": false,
      "value": {"type": "struct", "fields": [
        {"id": 43, "name": "v", "required": false, "type": "int"}]}}}]})";

NewTableRequest Request() {
  NewTableRequest r;
  Result<Schema> schema = Schema::FromJson(J(kRequestSchema));
  REQUIRE_OK(schema);
  r.schema = *schema;
  r.location = "s3://bucket/db/new";
  r.uuid = "00000000-0000-4000-8000-000000000001";
  r.now_ms = 1234;
  r.properties = {{"owner", "dana"}};
  return r;
}

std::string NameOf(const Schema& s, int32_t id) {
  const Json* f = s.FindField(id);
  return f == nullptr ? "<none>" : (*f)["name"].get<std::string>();
}

TEST_CASE("NewTableMetadata assigns fresh ids to fields at every depth") {
  Result<TableMetadata> m = NewTableMetadata(Request());
  REQUIRE_OK(m);
  REQUIRE(m->schemas.size() == 1);
  const Schema& s = m->schemas[0];
  CHECK(s.schema_id == 0);
  CHECK(m->current_schema_id == 0);
  // Each struct's fields first, then their children, as Iceberg's assignFreshIds does.
  CHECK(NameOf(s, 1) == "id");
  CHECK(NameOf(s, 2) == "point");
  CHECK(NameOf(s, 3) == "tags");
  CHECK(NameOf(s, 4) == "attrs");
  CHECK(NameOf(s, 5) == "x");
  CHECK(NameOf(s, 6) == "y");
  const Json& tags = s.fields[2]["type"];
  CHECK(tags["element-id"] == 7);
  const Json& attrs = s.fields[3]["type"];
  CHECK(attrs["key-id"] == 8);
  CHECK(attrs["value-id"] == 9);
  CHECK(attrs["value"]["fields"][0]["id"] == 10);
  CHECK(NameOf(s, 10) == "v");
  CHECK(s.highest_field_id == 10);
  CHECK(m->last_column_id == 10);
  CHECK(s.identifier_field_ids == std::vector<int32_t>{1});
}

TEST_CASE("NewTableMetadata remaps partition and sort source ids") {
  NewTableRequest r = Request();
  r.spec.fields = {PartitionField{10, std::nullopt, "id_bucket", "bucket[4]"},
                   PartitionField{21, 5000, "x", "identity"}};
  r.sort_order.order_id = 3;
  r.sort_order.fields = {SortField{22, "identity", "desc", "nulls-last"}};
  Result<TableMetadata> m = NewTableMetadata(r);
  REQUIRE_OK(m);
  REQUIRE(m->specs.size() == 1);
  const PartitionSpec& spec = m->specs[0];
  CHECK(spec.spec_id == 0);
  CHECK(m->default_spec_id == 0);
  CHECK(spec.fields[0] == PartitionField{1, 1000, "id_bucket", "bucket[4]"});
  CHECK(spec.fields[1] == PartitionField{5, 1001, "x", "identity"});
  CHECK(m->last_partition_id == 1001);
  REQUIRE(m->sort_orders.size() == 1);
  CHECK(m->sort_orders[0].order_id == 1);
  CHECK(m->default_sort_order_id == 1);
  CHECK(m->sort_orders[0].fields[0] == SortField{6, "identity", "desc", "nulls-last"});
}

TEST_CASE("NewTableMetadata of an unpartitioned, unsorted table") {
  Result<TableMetadata> m = NewTableMetadata(Request());
  REQUIRE_OK(m);
  CHECK(m->specs.size() == 1);
  CHECK(m->specs[0].fields.empty());
  CHECK(m->last_partition_id == 999);
  CHECK(m->sort_orders.size() == 1);
  CHECK(m->default_sort_order_id == 0);
  CHECK(m->sort_orders[0].IsUnsorted());
}

TEST_CASE("NewTableMetadata fills the table's identity and writes a valid document") {
  Result<TableMetadata> m = NewTableMetadata(Request());
  REQUIRE_OK(m);
  CHECK(m->format_version == 2);
  CHECK(m->table_uuid == "00000000-0000-4000-8000-000000000001");
  CHECK(m->location == "s3://bucket/db/new");
  CHECK(m->last_updated_ms == 1234);
  CHECK(m->last_sequence_number == 0);
  CHECK(m->properties == Properties{{"owner", "dana"}});
  CHECK_FALSE(m->current_snapshot_id.has_value());
  CHECK(m->snapshots.empty());
  CHECK(m->metadata_log.empty());
  Result<TableMetadata> reread = TableMetadata::FromJson(m->ToJson());
  REQUIRE_OK(reread);
  CHECK(reread->ToJson() == m->ToJson());
}

TEST_CASE("NewTableMetadata honours the format-version property and drops it") {
  SUBCASE("format-version 1") {
    NewTableRequest r = Request();
    r.properties["format-version"] = "1";
    Result<TableMetadata> m = NewTableMetadata(r);
    REQUIRE_OK(m);
    CHECK(m->format_version == 1);
    CHECK(m->properties.count("format-version") == 0);
    Json doc = m->ToJson();
    CHECK(doc.contains("schema"));
    CHECK_FALSE(doc.contains("last-sequence-number"));
  }
  SUBCASE("format-version 3") {
    NewTableRequest r = Request();
    r.properties["format-version"] = "3";
    Result<TableMetadata> m = NewTableMetadata(r);
    REQUIRE_OK(m);
    CHECK(m->format_version == 3);
    CHECK(m->next_row_id == 0);
    CHECK(m->properties == Properties{{"owner", "dana"}});
  }
}

TEST_CASE("NewTableMetadata rejects an unsupported format-version property") {
  for (const char* bad : {"0", "4", "two", "", "2 "}) {
    CAPTURE(bad);
    NewTableRequest r = Request();
    r.properties["format-version"] = bad;
    CHECK_STATUS(NewTableMetadata(r), kInvalidArgument, "format-version");
  }
}

TEST_CASE("NewTableMetadata rejects a partition or sort field on an unknown column") {
  SUBCASE("partition field") {
    NewTableRequest r = Request();
    r.spec.fields = {PartitionField{99, std::nullopt, "nope", "identity"}};
    CHECK_STATUS(NewTableMetadata(r), kInvalidArgument, "partition field: 99");
  }
  SUBCASE("sort field") {
    NewTableRequest r = Request();
    r.sort_order.fields = {SortField{98, "identity", "asc", "nulls-first"}};
    CHECK_STATUS(NewTableMetadata(r), kInvalidArgument, "sort field: 98");
  }
}

}  // namespace
}  // namespace cairn::engine
