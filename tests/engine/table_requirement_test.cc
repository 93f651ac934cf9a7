// TableRequirement: parsing of the 8 requirement types and Check() against a table, with the
// "Requirement failed: ..." messages Java clients and the REST compatibility kit expect.

#include "engine/table_requirement.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/engine/table_fixtures.h"

namespace cairn::engine {
namespace {

using testing::BaseTable;
using testing::J;
using testing::R;
using Kind = TableRequirement::Kind;

// Checks `st` is CommitFailed with exactly `message`.
void CheckFailedWith(const Status& st, const std::string& message) {
  CHECK_MESSAGE(st.code() == Status::Code::kCommitFailed, st.ToString());
  CHECK(st.message() == message);
}

TEST_CASE("every requirement type of the REST spec parses") {
  struct Case {
    const char* json;
    Kind kind;
  };
  const Case cases[] = {
      {R"({"type": "assert-create"})", Kind::kAssertCreate},
      {R"({"type": "assert-table-uuid", "uuid": "u"})", Kind::kAssertTableUuid},
      {R"({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 11})",
       Kind::kAssertRefSnapshotId},
      {R"({"type": "assert-last-assigned-field-id", "last-assigned-field-id": 3})",
       Kind::kAssertLastAssignedFieldId},
      {R"({"type": "assert-current-schema-id", "current-schema-id": 0})",
       Kind::kAssertCurrentSchemaId},
      {R"({"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 1000})",
       Kind::kAssertLastAssignedPartitionId},
      {R"({"type": "assert-default-spec-id", "default-spec-id": 0})", Kind::kAssertDefaultSpecId},
      {R"({"type": "assert-default-sort-order-id", "default-sort-order-id": 0})",
       Kind::kAssertDefaultSortOrderId},
  };
  for (const Case& c : cases) {
    CAPTURE(c.json);
    Result<TableRequirement> r = TableRequirement::FromJson(J(c.json));
    REQUIRE_OK(r);
    CHECK(r->kind == c.kind);
  }
}

TEST_CASE("requirement payloads are carried into the parsed requirement") {
  TableRequirement uuid = R(R"({"type": "assert-table-uuid", "uuid": "abc"})");
  CHECK(uuid.text == "abc");
  TableRequirement ref = R(R"({"type": "assert-ref-snapshot-id", "ref": "dev",
                              "snapshot-id": 3055729675574597004})");
  CHECK(ref.text == "dev");
  CHECK(ref.number == 3055729675574597004);
  TableRequirement absent =
      R(R"({"type": "assert-ref-snapshot-id", "ref": "dev", "snapshot-id": null})");
  CHECK_FALSE(absent.number.has_value());
  CHECK(R(R"({"type": "assert-current-schema-id", "current-schema-id": 4})").number == 4);
}

TEST_CASE("an unknown requirement type is rejected naming it") {
  CHECK_STATUS(TableRequirement::FromJson(J(R"({"type": "assert-view-uuid", "uuid": "u"})")),
               kInvalidArgument, "assert-view-uuid");
  CHECK_STATUS(TableRequirement::FromJson(J(R"({"uuid": "u"})")), kInvalidArgument, "'type'");
  CHECK_STATUS(TableRequirement::FromJson(J("[]")), kInvalidArgument, "object");
}

TEST_CASE("a requirement missing its field is rejected naming the field") {
  struct Case {
    const char* json;
    const char* field;
  };
  const Case cases[] = {
      {R"({"type": "assert-table-uuid"})", "'uuid'"},
      {R"({"type": "assert-ref-snapshot-id", "snapshot-id": 1})", "'ref'"},
      {R"({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": "1"})",
       "'snapshot-id'"},
      {R"({"type": "assert-last-assigned-field-id"})", "'last-assigned-field-id'"},
      {R"({"type": "assert-current-schema-id"})", "'current-schema-id'"},
      {R"({"type": "assert-last-assigned-partition-id"})", "'last-assigned-partition-id'"},
      {R"({"type": "assert-default-spec-id"})", "'default-spec-id'"},
      {R"({"type": "assert-default-sort-order-id"})", "'default-sort-order-id'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.json);
    CHECK_STATUS(TableRequirement::FromJson(J(c.json)), kInvalidArgument, c.field);
  }
}

TEST_CASE("assert-create passes only when the table does not exist") {
  TableMetadata base = BaseTable();
  TableRequirement r = R(R"({"type": "assert-create"})");
  REQUIRE_OK(r.Check(nullptr));
  CheckFailedWith(r.Check(&base), "Requirement failed: table already exists");
}

TEST_CASE("assert-table-uuid passes only on a matching uuid") {
  TableMetadata base = BaseTable();
  REQUIRE_OK(R(R"({"type": "assert-table-uuid", "uuid": "00000000-0000-4000-8000-00000000000a"})")
                 .Check(&base));
  CheckFailedWith(R(R"({"type": "assert-table-uuid", "uuid": "other"})").Check(&base),
                  "Requirement failed: UUID does not match: expected "
                  "00000000-0000-4000-8000-00000000000a != other");
}

TEST_CASE("assert-ref-snapshot-id passes only when the ref points at the snapshot") {
  TableMetadata base = BaseTable();  // main -> 11, tag v1 -> 10
  REQUIRE_OK(R(R"({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 11})")
                 .Check(&base));
  REQUIRE_OK(R(R"({"type": "assert-ref-snapshot-id", "ref": "v1", "snapshot-id": 10})")
                 .Check(&base));
  CheckFailedWith(
      R(R"({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 10})").Check(&base),
      "Requirement failed: branch main has changed: expected id 10 != 11");
  CheckFailedWith(
      R(R"({"type": "assert-ref-snapshot-id", "ref": "v1", "snapshot-id": 11})").Check(&base),
      "Requirement failed: tag v1 has changed: expected id 11 != 10");
  CheckFailedWith(
      R(R"({"type": "assert-ref-snapshot-id", "ref": "dev", "snapshot-id": 11})").Check(&base),
      "Requirement failed: branch or tag dev is missing, expected 11");
}

TEST_CASE("assert-ref-snapshot-id with a null snapshot id passes only when the ref is absent") {
  TableMetadata base = BaseTable();
  REQUIRE_OK(R(R"({"type": "assert-ref-snapshot-id", "ref": "dev", "snapshot-id": null})")
                 .Check(&base));
  CheckFailedWith(
      R(R"({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": null})").Check(&base),
      "Requirement failed: branch main was created concurrently");
  CheckFailedWith(
      R(R"({"type": "assert-ref-snapshot-id", "ref": "v1", "snapshot-id": null})").Check(&base),
      "Requirement failed: tag v1 was created concurrently");
  // A table with no snapshots yet has no main.
  base.refs.clear();
  base.current_snapshot_id.reset();
  REQUIRE_OK(R(R"({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": null})")
                 .Check(&base));
}

TEST_CASE("assert-last-assigned-field-id passes only on the table's last column id") {
  TableMetadata base = BaseTable();  // last-column-id 3
  REQUIRE_OK(R(R"({"type": "assert-last-assigned-field-id", "last-assigned-field-id": 3})")
                 .Check(&base));
  CheckFailedWith(
      R(R"({"type": "assert-last-assigned-field-id", "last-assigned-field-id": 2})")
          .Check(&base),
      "Requirement failed: last assigned field id changed: expected id 2 != 3");
}

TEST_CASE("assert-current-schema-id passes only on the current schema") {
  TableMetadata base = BaseTable();
  REQUIRE_OK(R(R"({"type": "assert-current-schema-id", "current-schema-id": 0})").Check(&base));
  CheckFailedWith(
      R(R"({"type": "assert-current-schema-id", "current-schema-id": 1})").Check(&base),
      "Requirement failed: current schema changed: expected id 1 != 0");
}

TEST_CASE("assert-last-assigned-partition-id passes only on the last partition id") {
  TableMetadata base = BaseTable();  // last-partition-id 1000
  REQUIRE_OK(
      R(R"({"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 1000})")
          .Check(&base));
  CheckFailedWith(
      R(R"({"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 999})")
          .Check(&base),
      "Requirement failed: last assigned partition id changed: expected id 999 != 1000");
}

TEST_CASE("assert-default-spec-id passes only on the default spec") {
  TableMetadata base = BaseTable();
  REQUIRE_OK(R(R"({"type": "assert-default-spec-id", "default-spec-id": 0})").Check(&base));
  CheckFailedWith(R(R"({"type": "assert-default-spec-id", "default-spec-id": 2})").Check(&base),
                  "Requirement failed: default partition spec changed: expected id 2 != 0");
}

TEST_CASE("assert-default-sort-order-id passes only on the default sort order") {
  TableMetadata base = BaseTable();
  REQUIRE_OK(R(R"({"type": "assert-default-sort-order-id", "default-sort-order-id": 0})")
                 .Check(&base));
  CheckFailedWith(
      R(R"({"type": "assert-default-sort-order-id", "default-sort-order-id": 1})")
          .Check(&base),
      "Requirement failed: default sort order changed: expected id 1 != 0");
}

TEST_CASE("requirements other than assert-create fail on a missing table") {
  const char* requirements[] = {
      R"({"type": "assert-table-uuid", "uuid": "u"})",
      R"({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": 1})",
      R"({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": null})",
      R"({"type": "assert-last-assigned-field-id", "last-assigned-field-id": 0})",
      R"({"type": "assert-current-schema-id", "current-schema-id": 0})",
      R"({"type": "assert-last-assigned-partition-id", "last-assigned-partition-id": 999})",
      R"({"type": "assert-default-spec-id", "default-spec-id": 0})",
      R"({"type": "assert-default-sort-order-id", "default-sort-order-id": 0})",
  };
  for (const char* json : requirements) {
    CAPTURE(json);
    Status st = R(json).Check(nullptr);
    CHECK_STATUS(st, kCommitFailed, "Requirement failed: ");
    CHECK(st.message().rfind("Requirement failed: ", 0) == 0);
  }
}

TEST_CASE("ParseTableRequirements parses a list and HasAssertCreate finds assert-create") {
  Result<std::vector<TableRequirement>> with_create = ParseTableRequirements(J(R"([
      {"type": "assert-current-schema-id", "current-schema-id": 0},
      {"type": "assert-create"}])"));
  REQUIRE_OK(with_create);
  REQUIRE(with_create->size() == 2);
  CHECK(HasAssertCreate(*with_create));
  Result<std::vector<TableRequirement>> without = ParseTableRequirements(J(R"([
      {"type": "assert-default-spec-id", "default-spec-id": 0}])"));
  REQUIRE_OK(without);
  CHECK_FALSE(HasAssertCreate(*without));
  CHECK_STATUS(ParseTableRequirements(J(R"({"type": "assert-create"})")), kInvalidArgument,
               "requirements");
  CHECK_STATUS(ParseTableRequirements(J(R"([{"type": "assert-create"}, {"type": "nope"}])")),
               kInvalidArgument, "nope");
}

}  // namespace
}  // namespace cairn::engine
