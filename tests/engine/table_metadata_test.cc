// TableMetadata serde against Apache Iceberg's own fixtures (CAIRN_SPEC_DIR) and the rules of
// the table spec: what must parse, what must round-trip, what must be rejected and why.

#include "engine/table_metadata.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/engine/table_fixtures.h"

namespace cairn::engine {
namespace {

namespace fs = std::filesystem;
using testing::J;

// The fixture directory. Fails (never skips) the test when it is not configured.
fs::path SpecDir() {
  const char* dir = std::getenv("CAIRN_SPEC_DIR");
  REQUIRE_MESSAGE(dir != nullptr, "CAIRN_SPEC_DIR is not set (meson test sets it)");
  REQUIRE_MESSAGE(fs::is_directory(dir), "CAIRN_SPEC_DIR is not a directory: " << dir);
  return dir;
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The documents that must parse: every TableMetadata*Valid*.json plus the statistics ones.
std::vector<fs::path> ValidFixtures() {
  fs::path dir = SpecDir();
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("TableMetadata", 0) == 0 && name.find("Valid") != std::string::npos &&
        entry.path().extension() == ".json") {
      out.push_back(entry.path());
    }
  }
  out.push_back(dir / "TableMetadataStatisticsFiles.json");
  out.push_back(dir / "TableMetadataPartitionStatisticsFiles.json");
  return out;
}

// Where `want` is not contained in `got` (objects: every key of `want`, recursively; arrays:
// same length, element by element; scalars: equal), as a JSON-pointer-like path; nullopt
// when it is contained. Keys only in `got` are what the serializer may add.
std::optional<std::string> FirstMissing(const Json& want, const Json& got,
                                        const std::string& path = "") {
  if (want.is_object()) {
    if (!got.is_object()) return path + " (not an object)";
    for (auto it = want.begin(); it != want.end(); ++it) {
      auto g = got.find(it.key());
      if (g == got.end()) return path + "/" + it.key() + " (absent)";
      if (auto miss = FirstMissing(*it, *g, path + "/" + it.key())) return miss;
    }
    return std::nullopt;
  }
  if (want.is_array()) {
    if (!got.is_array() || got.size() != want.size()) return path + " (array differs)";
    for (size_t i = 0; i < want.size(); ++i) {
      if (auto miss = FirstMissing(want[i], got[i], path + "/" + std::to_string(i))) return miss;
    }
    return std::nullopt;
  }
  if (want == got) return std::nullopt;
  return path + ": " + want.dump() + " != " + got.dump();
}

// Every top-level field the table spec defines (v1 to v3).
const std::set<std::string>& SpecFields() {
  static const std::set<std::string> kFields = {
      "format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms",
      "last-column-id", "schema", "schemas", "current-schema-id", "partition-spec",
      "partition-specs", "default-spec-id", "last-partition-id", "properties",
      "current-snapshot-id", "snapshots", "snapshot-log", "metadata-log", "sort-orders",
      "default-sort-order-id", "refs", "statistics", "partition-statistics", "next-row-id",
      "encryption-keys"};
  return kFields;
}

TEST_CASE("the spec fixture directory is configured and holds the table fixtures") {
  fs::path dir = SpecDir();
  for (const char* name : {"TableMetadataV1Valid.json", "TableMetadataV2Valid.json",
                           "TableMetadataV2ValidMinimal.json", "TableMetadataV3ValidMinimal.json",
                           "TableMetadataStatisticsFiles.json",
                           "TableMetadataPartitionStatisticsFiles.json"}) {
    CHECK_MESSAGE(fs::exists(dir / name), "missing fixture " << name);
  }
  CHECK(ValidFixtures().size() >= 6);
}

TEST_CASE("every valid fixture parses and serializes to a superset of itself") {
  for (const fs::path& path : ValidFixtures()) {
    CAPTURE(path.filename().string());
    Json original = J(ReadText(path));
    Result<TableMetadata> m = TableMetadata::FromJson(original);
    REQUIRE_OK(m);
    Json out = m->ToJson();
    std::optional<std::string> miss = FirstMissing(original, out);
    CHECK_MESSAGE(!miss.has_value(), "ToJson lost or changed " << miss.value_or(""));
    for (auto it = out.begin(); it != out.end(); ++it) {
      CHECK_MESSAGE(SpecFields().count(it.key()) == 1, "unexpected field " << it.key());
    }
    CHECK(out["format-version"] == original["format-version"]);
  }
}

TEST_CASE("every valid fixture reaches a fixpoint after one round trip") {
  for (const fs::path& path : ValidFixtures()) {
    CAPTURE(path.filename().string());
    Result<TableMetadata> first = TableMetadata::FromJsonText(ReadText(path));
    REQUIRE_OK(first);
    const std::string once = first->ToJson().dump();
    Result<TableMetadata> second = TableMetadata::FromJsonText(once);
    REQUIRE_OK(second);
    CHECK(second->ToJson().dump() == once);
    CHECK(second->ToJsonRefsOnlyText() == first->ToJsonRefsOnlyText());
  }
}

TEST_CASE("every invalid fixture is rejected with a message naming the problem") {
  struct Case {
    const char* file;
    const char* needle;
  };
  const Case cases[] = {
      {"TableMetadataUnsupportedVersion.json", "format-version"},
      {"TableMetadataV1MissingSchemaType.json", "type"},
      {"TableMetadataV2CurrentSchemaNotFound.json", "current-schema-id"},
      {"TableMetadataV2MissingLastPartitionId.json", "last-partition-id"},
      {"TableMetadataV2MissingPartitionSpecs.json", "partition-specs"},
      {"TableMetadataV2MissingSchemas.json", "schemas"},
      {"TableMetadataV2MissingSortOrder.json", "sort-orders"},
  };
  fs::path dir = SpecDir();
  for (const Case& c : cases) {
    CAPTURE(c.file);
    CHECK_STATUS(TableMetadata::FromJsonText(ReadText(dir / c.file)), kInvalidArgument,
                 c.needle);
  }
}

TEST_CASE("the v2 fixture parses into the values it holds") {
  Result<TableMetadata> m = TableMetadata::FromJsonText(
      ReadText(SpecDir() / "TableMetadataV2Valid.json"));
  REQUIRE_OK(m);
  CHECK(m->format_version == 2);
  CHECK(m->table_uuid == "9c12d441-03fe-4693-9a96-a0705ddf69c1");
  CHECK(m->last_sequence_number == 34);
  CHECK(m->last_column_id == 3);
  CHECK(m->schemas.size() == 2);
  CHECK(m->current_schema_id == 1);
  REQUIRE(m->CurrentSchema() != nullptr);
  CHECK(m->CurrentSchema()->identifier_field_ids == std::vector<int32_t>{1, 2});
  CHECK(m->CurrentSchema()->highest_field_id == 3);
  CHECK(m->last_partition_id == 1000);
  REQUIRE(m->FindSortOrder(3) != nullptr);
  CHECK(m->FindSortOrder(3)->fields.size() == 2);
  CHECK(m->snapshots.size() == 2);
  CHECK(m->current_snapshot_id == 3055729675574597004);
  REQUIRE(m->CurrentSnapshot() != nullptr);
  CHECK(m->CurrentSnapshot()->parent_snapshot_id == 3051729675574597004);
  CHECK(m->snapshot_log.size() == 2);
  // No "refs" in the document: main is derived from current-snapshot-id.
  REQUIRE(m->refs.count("main") == 1);
  CHECK(m->refs.at("main").snapshot_id == 3055729675574597004);
}

TEST_CASE("a v1 document with a current snapshot gets a main branch ref") {
  Json doc = J(ReadText(SpecDir() / "TableMetadataV1Valid.json"));
  doc["current-snapshot-id"] = 7;
  doc["snapshots"] = J(R"([{"snapshot-id": 7, "timestamp-ms": 1602638573000,
                            "manifests": ["s3://bucket/m1.avro"],
                            "summary": {"operation": "append"}}])");
  Result<TableMetadata> m = TableMetadata::FromJson(doc);
  REQUIRE_OK(m);
  REQUIRE(m->refs.count("main") == 1);
  CHECK(m->refs.at("main").snapshot_id == 7);
  CHECK(m->refs.at("main").is_branch());
  Json out = m->ToJson();
  CHECK(out["refs"] == J(R"({"main": {"snapshot-id": 7, "type": "branch"}})"));
  CHECK(out["snapshots"][0]["manifests"] == J(R"(["s3://bucket/m1.avro"])"));
  // Legacy v1 fields stay beside the v2-style lists.
  CHECK(out["schema"]["fields"].size() == 3);
  CHECK(out["partition-spec"][0]["field-id"] == 1000);
}

TEST_CASE("a v1 document without a current snapshot gets no refs") {
  Result<TableMetadata> m =
      TableMetadata::FromJsonText(ReadText(SpecDir() / "TableMetadataV1Valid.json"));
  REQUIRE_OK(m);
  CHECK(m->refs.empty());
  CHECK_FALSE(m->current_snapshot_id.has_value());
  CHECK(m->ToJson()["current-snapshot-id"] == -1);
}

TEST_CASE("the refs-only document keeps only snapshots that a ref points to") {
  TableMetadata m = testing::BaseTable();  // snapshots 10 (tag v1) and 11 (main)
  auto ids = [](const Json& doc) {
    std::set<int64_t> out;
    for (const Json& s : doc["snapshots"]) out.insert(s["snapshot-id"].get<int64_t>());
    return out;
  };
  CHECK(ids(Json::parse(m.ToJsonRefsOnlyText())) == std::set<int64_t>{10, 11});
  m.refs.erase("v1");
  CHECK(ids(Json::parse(m.ToJsonRefsOnlyText())) == std::set<int64_t>{11});
  CHECK(ids(m.ToJson()) == std::set<int64_t>{10, 11});
  // Everything but the snapshot list is the same document.
  Json all = m.ToJson();
  Json refs_only = Json::parse(m.ToJsonRefsOnlyText());
  all.erase("snapshots");
  refs_only.erase("snapshots");
  CHECK(all == refs_only);
}

TEST_CASE("a ref to an unknown snapshot is rejected") {
  Json doc = J(testing::BaseTableJson());
  doc["refs"]["dangling"] = J(R"({"snapshot-id": 99, "type": "branch"})");
  CHECK_STATUS(TableMetadata::FromJson(doc), kInvalidArgument, "dangling");
}

TEST_CASE("a current-snapshot-id that is not among the snapshots is rejected") {
  Json doc = J(testing::BaseTableJson());
  doc["current-snapshot-id"] = 99;
  CHECK_STATUS(TableMetadata::FromJson(doc), kInvalidArgument, "current-snapshot-id");
}

// Java's TableMetadata rejects both ("Current snapshot ID does not match main branch",
// "Current snapshot is not set, but main branch exists").
TEST_CASE("a main ref that disagrees with current-snapshot-id is rejected") {
  Json doc = J(testing::BaseTableJson());  // main -> 11
  SUBCASE("a different snapshot") {
    doc["current-snapshot-id"] = 10;
    CHECK_STATUS(TableMetadata::FromJson(doc), kInvalidArgument, "main");
  }
  SUBCASE("no current snapshot") {
    doc["current-snapshot-id"] = -1;
    CHECK_STATUS(TableMetadata::FromJson(doc), kInvalidArgument, "main");
  }
}

TEST_CASE("a v2 snapshot without a sequence number is rejected") {
  Json doc = J(testing::BaseTableJson());
  doc["snapshots"][0].erase("sequence-number");
  CHECK_STATUS(TableMetadata::FromJson(doc), kInvalidArgument, "sequence-number");
}

TEST_CASE("a v3 document without next-row-id reads it as zero") {
  Json doc = J(ReadText(SpecDir() / "TableMetadataV3ValidMinimal.json"));
  doc.erase("next-row-id");
  Result<TableMetadata> m = TableMetadata::FromJson(doc);
  REQUIRE_OK(m);
  CHECK(m->next_row_id == 0);
  CHECK(m->ToJson()["next-row-id"] == 0);
}

TEST_CASE("the concatenated document text equals the serialized model for every fixture") {
  for (const fs::path& path : ValidFixtures()) {
    CAPTURE(path.filename().string());
    auto m = TableMetadata::FromJsonText(ReadText(path));
    REQUIRE(m.ok());
    Json from_text = Json::parse(m->ToJsonText());
    CHECK(from_text == m->ToJson());
  }
}

TEST_CASE("the document text writes both logs as the tree does, escaping odd file names") {
  TableMetadata m = testing::BaseTable();
  m.snapshot_log = {{1000, 10}, {2000, 11}, {-1, -9223372036854775807LL - 1}};
  m.metadata_log = {{1500, "file:/t/metadata/00001.metadata.json"},
                    {1600, "s3://b/quote\"back\\slash\ttab\x01ctl/é.json"}};
  Json from_text = Json::parse(m.ToJsonText());
  CHECK(from_text == m.ToJson());
  CHECK(from_text["metadata-log"][1]["metadata-file"] == m.metadata_log[1].metadata_file);
  CHECK(from_text["snapshot-log"].size() == 3);
  m.snapshot_log.clear();
  m.metadata_log.clear();
  CHECK(Json::parse(m.ToJsonText()) == m.ToJson());
}

}  // namespace
}  // namespace cairn::engine
