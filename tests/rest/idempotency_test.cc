// Idempotency-Key through the REST layer, on in-memory backends.
#include <doctest/doctest.h>

#include "catalog/memory_metastore.h"
#include "engine/memory_file_io.h"
#include "rest/rest_api.h"

namespace cairn::rest {
namespace {

using engine::Json;

constexpr const char* kKey = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
constexpr const char* kOtherKey = "017f22e2-79b0-7cc3-98c4-dc0c0c073990";

struct Fixture {
  Fixture() {
    catalog::CatalogOptions o;
    o.metastore = std::make_shared<catalog::MemoryMetastore>();
    o.file_io = files;
    o.clock = clock;
    o.ids = std::make_shared<engine::SequentialIdGenerator>();
    o.warehouse = "file:///warehouse";
    catalog = std::make_unique<catalog::Catalog>(o);
    api = std::make_unique<RestApi>(catalog.get());
  }

  HttpResponse Call(const std::string& method, const std::string& path, const std::string& body,
                    const std::string& key = "") {
    HttpRequest r;
    r.method = method;
    r.raw_path = path;
    r.body = body;
    if (!key.empty()) r.headers["Idempotency-Key"] = key;
    return api->Handle(r);
  }

  std::shared_ptr<engine::MemoryFileIO> files = std::make_shared<engine::MemoryFileIO>();
  std::shared_ptr<engine::ManualClock> clock =
      std::make_shared<engine::ManualClock>(1'700'000'000'000);
  std::unique_ptr<catalog::Catalog> catalog;
  std::unique_ptr<RestApi> api;
};

const char* kTable =
    R"({"name":"t","schema":{"type":"struct","fields":[{"id":1,"name":"x","required":false,"type":"long"}]}})";

std::string Append(int64_t id, const std::string& parent) {
  Json snapshot = {{"snapshot-id", id},
                   {"sequence-number", id},
                   {"timestamp-ms", 1'700'000'000'000 + id},
                   {"manifest-list", "file:///warehouse/ns/t/metadata/snap-" + std::to_string(id)},
                   {"summary", {{"operation", "append"}}}};
  Json req = Json::object();
  req["requirements"] = Json::array({{{"type", "assert-ref-snapshot-id"}, {"ref", "main"},
                                      {"snapshot-id", parent.empty() ? Json() : Json::parse(parent)}}});
  req["updates"] = Json::array({{{"action", "add-snapshot"}, {"snapshot", snapshot}},
                                {{"action", "set-snapshot-ref"}, {"ref-name", "main"},
                                 {"type", "branch"}, {"snapshot-id", id}}});
  return req.dump();
}

TEST_CASE("config advertises the idempotency key lifetime") {
  Fixture f;
  Json config = Json::parse(f.Call("GET", "/v1/config", "").body);
  CHECK(config["idempotency-key-lifetime"] == "PT30M");
}

TEST_CASE("a replayed commit returns the first answer and commits nothing more") {
  Fixture f;
  REQUIRE(f.Call("POST", "/v1/namespaces", R"({"namespace":["ns"]})").status == 200);
  REQUIRE(f.Call("POST", "/v1/namespaces/ns/tables", kTable).status == 200);
  HttpResponse first = f.Call("POST", "/v1/namespaces/ns/tables/t", Append(1, ""), kKey);
  REQUIRE(first.status == 200);
  size_t files_after_first = f.files->size();
  HttpResponse replay = f.Call("POST", "/v1/namespaces/ns/tables/t", Append(1, ""), kKey);
  REQUIRE(replay.status == 200);
  CHECK(Json::parse(replay.body)["metadata-location"] ==
        Json::parse(first.body)["metadata-location"]);
  CHECK(Json::parse(replay.body)["metadata"]["snapshots"].size() == 1);
  CHECK(f.files->size() == files_after_first);
}

TEST_CASE("a replayed conflict is the same conflict") {
  Fixture f;
  REQUIRE(f.Call("POST", "/v1/namespaces", R"({"namespace":["ns"]})").status == 200);
  REQUIRE(f.Call("POST", "/v1/namespaces/ns/tables", kTable).status == 200);
  HttpResponse first = f.Call("POST", "/v1/namespaces/ns/tables/t", Append(1, "7"), kKey);
  REQUIRE(first.status == 409);
  // The table moves on, so running the request again would now give another answer.
  REQUIRE(f.Call("POST", "/v1/namespaces/ns/tables/t", Append(1, "")).status == 200);
  HttpResponse replay = f.Call("POST", "/v1/namespaces/ns/tables/t", Append(1, "7"), kKey);
  CHECK(replay.status == 409);
  CHECK(replay.body == first.body);
}

TEST_CASE("a replayed namespace create answers 200 again, not already-exists") {
  Fixture f;
  CHECK(f.Call("POST", "/v1/namespaces", R"({"namespace":["ns"]})", kKey).status == 200);
  HttpResponse replay = f.Call("POST", "/v1/namespaces", R"({"namespace":["ns"]})", kKey);
  CHECK(replay.status == 200);
  CHECK(f.Call("POST", "/v1/namespaces", R"({"namespace":["ns"]})", kOtherKey).status == 409);
}

TEST_CASE("a key reused for another request is rejected") {
  Fixture f;
  REQUIRE(f.Call("POST", "/v1/namespaces", R"({"namespace":["a"]})", kKey).status == 200);
  HttpResponse res = f.Call("DELETE", "/v1/namespaces/a", "", kKey);
  CHECK(res.status == 422);
  CHECK(f.Call("GET", "/v1/namespaces/a", "").status == 200);
}

TEST_CASE("a malformed key is a 400 and nothing runs") {
  Fixture f;
  HttpResponse res = f.Call("POST", "/v1/namespaces", R"({"namespace":["a"]})", "not-a-uuid");
  CHECK(res.status == 400);
  CHECK(f.Call("GET", "/v1/namespaces/a", "").status == 404);
}

TEST_CASE("a key whose request died is taken over once it is stale") {
  Fixture f;
  auto claim = f.catalog->ClaimIdempotencyKey(kKey, "POST /v1/namespaces");
  REQUIRE(claim.ok());
  REQUIRE_FALSE(claim->existing.has_value());  // a request holds the key, never finishes
  f.clock->Advance(60 * 1000);
  HttpResponse res = f.Call("POST", "/v1/namespaces", R"({"namespace":["a"]})", kKey);
  CHECK(res.status == 200);
}

TEST_CASE("a request that lost its key to a retry does not commit") {
  Fixture f;
  REQUIRE(f.Call("POST", "/v1/namespaces", R"({"namespace":["ns"]})").status == 200);
  REQUIRE(f.Call("POST", "/v1/namespaces/ns/tables", kTable).status == 200);
  // The original claims the key and stalls before committing.
  auto original = f.catalog->ClaimIdempotencyKey(kKey, "POST /v1/namespaces/ns/tables/t");
  REQUIRE(original.ok());
  REQUIRE_FALSE(original->existing.has_value());
  f.clock->Advance(60 * 1000);
  HttpResponse retry = f.Call("POST", "/v1/namespaces/ns/tables/t", Append(1, ""), kKey);
  REQUIRE(retry.status == 200);
  // The original wakes up and commits with the token it no longer holds: nothing applies.
  catalog::TableChange change;
  change.id = catalog::TableIdentifier{{"ns"}, "t"};
  auto updates = engine::ParseTableUpdates(Json::parse(Append(2, "1"))["updates"]);
  REQUIRE(updates.ok());
  change.updates = *updates;
  auto committed = f.catalog->CommitTable(change, original->token);
  CHECK(committed.status().code() == engine::Status::Code::kCommitFailed);
  Json table = Json::parse(f.Call("GET", "/v1/namespaces/ns/tables/t", "").body);
  CHECK(table["metadata"]["snapshots"].size() == 1);
}

TEST_CASE("keys expire after their lifetime") {
  Fixture f;
  REQUIRE(f.Call("POST", "/v1/namespaces", R"({"namespace":["a"]})", kKey).status == 200);
  f.clock->Advance(31 * 60 * 1000);
  // The key is forgotten: the same request runs again and meets the namespace it made.
  CHECK(f.Call("POST", "/v1/namespaces", R"({"namespace":["a"]})", kKey).status == 409);
}

}  // namespace
}  // namespace cairn::rest
