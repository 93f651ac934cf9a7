// The REST layer in process: RestApi over a Catalog with in-memory backends.
#include "rest/rest_api.h"

#include <doctest/doctest.h>

#include "catalog/memory_metastore.h"
#include "engine/memory_file_io.h"

namespace cairn::rest {
namespace {

using engine::Json;

struct Fixture {
  Fixture() {
    catalog::CatalogOptions o;
    o.metastore = std::make_shared<catalog::MemoryMetastore>();
    o.file_io = std::make_shared<engine::MemoryFileIO>();
    o.clock = std::make_shared<engine::ManualClock>(1'700'000'000'000);
    o.ids = std::make_shared<engine::SequentialIdGenerator>();
    o.warehouse = "file:///warehouse";
    catalog = std::make_unique<catalog::Catalog>(o);
    api = std::make_unique<RestApi>(catalog.get());
  }

  HttpResponse Call(const std::string& method, const std::string& path,
                    const std::string& body = "", Headers headers = {}) {
    HttpRequest r;
    r.method = method;
    std::string target = path;
    size_t q = target.find('?');
    r.raw_path = target.substr(0, q);
    if (q != std::string::npos) {
      std::string query = target.substr(q + 1);
      size_t start = 0;
      while (start < query.size()) {
        size_t amp = query.find('&', start);
        if (amp == std::string::npos) amp = query.size();
        std::string kv = query.substr(start, amp - start);
        size_t eq = kv.find('=');
        r.query[PercentDecode(kv.substr(0, eq), true)] =
            eq == std::string::npos ? "" : PercentDecode(kv.substr(eq + 1), true);
        start = amp + 1;
      }
    }
    r.body = body;
    r.headers = std::move(headers);
    return api->Handle(r);
  }

  void CreateTable(const std::string& ns, const std::string& name) {
    REQUIRE(Call("POST", "/v1/namespaces", R"({"namespace":[")" + ns + R"("]})").status == 200);
    std::string body = R"({"name":")" + name +
                       R"(","schema":{"type":"struct","fields":[{"id":1,"name":"x","required":false,"type":"long"}]}})";
    REQUIRE(Call("POST", "/v1/namespaces/" + ns + "/tables", body).status == 200);
  }

  std::unique_ptr<catalog::Catalog> catalog;
  std::unique_ptr<RestApi> api;
};

// The ErrorModel of a response; fails the test when the body is not one.
Json Error(const HttpResponse& res) {
  Json body = Json::parse(res.body, nullptr, false);
  REQUIRE(body.is_object());
  REQUIRE(body.contains("error"));
  CHECK(body["error"]["code"] == res.status);
  CHECK(body["error"]["type"].is_string());
  return body["error"];
}

TEST_CASE("config lists every served route as an endpoint") {
  Fixture f;
  HttpResponse res = f.Call("GET", "/v1/config", "", {});
  REQUIRE(res.status == 200);
  Json body = Json::parse(res.body);
  CHECK(body["defaults"].is_object());
  CHECK(body["overrides"].is_object());
  std::vector<std::string> endpoints = body["endpoints"];
  auto has = [&](const std::string& e) {
    return std::find(endpoints.begin(), endpoints.end(), e) != endpoints.end();
  };
  CHECK(has("GET /v1/{prefix}/namespaces"));
  CHECK(has("HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}"));
  CHECK(has("POST /v1/{prefix}/transactions/commit"));
  CHECK_FALSE(has("GET /health"));
}

TEST_CASE("malformed JSON, wrong types and missing fields are 400s that name the problem") {
  Fixture f;
  Json e = Error(f.Call("POST", "/v1/namespaces", "{not json"));
  CHECK(e["code"] == 400);
  CHECK(e["message"].get<std::string>().find("malformed JSON") != std::string::npos);
  e = Error(f.Call("POST", "/v1/namespaces", R"({"namespace":"flat"})"));
  CHECK(e["code"] == 400);
  CHECK(e["message"].get<std::string>().find("namespace") != std::string::npos);
  e = Error(f.Call("POST", "/v1/namespaces", "{}"));
  CHECK(e["message"].get<std::string>().find("missing required field 'namespace'") !=
        std::string::npos);
  e = Error(f.Call("POST", "/v1/namespaces", R"({"namespace":["a", ""]})"));
  CHECK(e["code"] == 400);
}

TEST_CASE("table names that are empty or contain a slash are rejected") {
  Fixture f;
  f.CreateTable("ns", "t");
  std::string schema = R"("schema":{"type":"struct","fields":[]})";
  Json e = Error(f.Call("POST", "/v1/namespaces/ns/tables", R"({"name":"",)" + schema + "}"));
  CHECK(e["code"] == 400);
  CHECK(e["message"].get<std::string>().find("must not be empty") != std::string::npos);
  e = Error(f.Call("POST", "/v1/namespaces/ns/tables", R"({"name":"a/b",)" + schema + "}"));
  CHECK(e["code"] == 400);
  CHECK(e["message"].get<std::string>().find("'/'") != std::string::npos);
}

TEST_CASE("an encoded slash in a path segment stays inside the name") {
  Fixture f;
  f.CreateTable("ns", "t");
  Json e = Error(f.Call("GET", "/v1/namespaces/ns/tables/a%2Fb"));
  CHECK(e["code"] == 404);
  CHECK(e["type"] == "NoSuchTableException");
}

TEST_CASE("unknown namespaces and tables are 404s of the spec's types") {
  Fixture f;
  Json e = Error(f.Call("GET", "/v1/namespaces/nope/tables"));
  CHECK(e["type"] == "NoSuchNamespaceException");
  f.CreateTable("ns", "t");
  e = Error(f.Call("GET", "/v1/namespaces/ns/tables/missing"));
  CHECK(e["type"] == "NoSuchTableException");
  CHECK(f.Call("HEAD", "/v1/namespaces/ns/tables/missing").status == 404);
  CHECK(f.Call("HEAD", "/v1/namespaces/ns/tables/t").status == 204);
}

TEST_CASE("unknown routes are 404 and wrong methods 405, both as ErrorModel") {
  Fixture f;
  CHECK(Error(f.Call("GET", "/v1/nothing-here"))["code"] == 404);
  CHECK(Error(f.Call("PUT", "/v1/namespaces"))["code"] == 405);
}

TEST_CASE("loadTable answers 304 to a matching If-None-Match and 200 after a commit") {
  Fixture f;
  f.CreateTable("ns", "t");
  HttpResponse first = f.Call("GET", "/v1/namespaces/ns/tables/t");
  REQUIRE(first.status == 200);
  std::string etag = first.headers["ETag"];
  REQUIRE_FALSE(etag.empty());
  HttpResponse again = f.Call("GET", "/v1/namespaces/ns/tables/t", "", {{"If-None-Match", etag}});
  CHECK(again.status == 304);
  CHECK(again.body.empty());
  HttpResponse refs = f.Call("GET", "/v1/namespaces/ns/tables/t?snapshots=refs", "",
                             {{"If-None-Match", etag}});
  CHECK(refs.status == 200);  // another representation, another tag
  std::string commit = R"({"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"v"}}]})";
  REQUIRE(f.Call("POST", "/v1/namespaces/ns/tables/t", commit).status == 200);
  CHECK(f.Call("GET", "/v1/namespaces/ns/tables/t", "", {{"If-None-Match", etag}}).status == 200);
}

TEST_CASE("unknown update and requirement types are 400s naming them") {
  Fixture f;
  f.CreateTable("ns", "t");
  Json e = Error(f.Call("POST", "/v1/namespaces/ns/tables/t",
                        R"({"requirements":[],"updates":[{"action":"explode"}]})"));
  CHECK(e["code"] == 400);
  CHECK(e["message"].get<std::string>().find("explode") != std::string::npos);
  e = Error(f.Call("POST", "/v1/namespaces/ns/tables/t",
                   R"({"requirements":[{"type":"assert-magic"}],"updates":[]})"));
  CHECK(e["code"] == 400);
  CHECK(e["message"].get<std::string>().find("assert-magic") != std::string::npos);
}

TEST_CASE("a failed requirement is a 409 CommitFailedException") {
  Fixture f;
  f.CreateTable("ns", "t");
  Json e = Error(f.Call("POST", "/v1/namespaces/ns/tables/t",
                        R"({"requirements":[{"type":"assert-table-uuid","uuid":"00000000-0000-0000-0000-000000000000"}],"updates":[]})"));
  CHECK(e["code"] == 409);
  CHECK(e["type"] == "CommitFailedException");
  CHECK(e["message"].get<std::string>().rfind("Requirement failed: UUID does not match", 0) == 0);
}

TEST_CASE("listing pages end with no next-page-token") {
  Fixture f;
  for (const char* name : {"a", "b", "c"}) {
    REQUIRE(f.Call("POST", "/v1/namespaces", std::string(R"({"namespace":[")") + name + R"("]})")
                .status == 200);
  }
  Json page = Json::parse(f.Call("GET", "/v1/namespaces?pageToken=&pageSize=2").body);
  CHECK(page["namespaces"].size() == 2);
  REQUIRE(page["next-page-token"].is_string());
  std::string token = page["next-page-token"];
  HttpResponse next = f.Call("GET", "/v1/namespaces?pageSize=2&pageToken=" + token);
  page = Json::parse(next.body);
  CHECK(page["namespaces"] == Json::parse(R"([["c"]])"));
  CHECK_FALSE(page.contains("next-page-token"));
  CHECK(Error(f.Call("GET", "/v1/namespaces?pageSize=0"))["code"] == 400);
}

TEST_CASE("nested namespaces are addressed with the 0x1F separator") {
  Fixture f;
  REQUIRE(f.Call("POST", "/v1/namespaces", R"({"namespace":["a"]})").status == 200);
  REQUIRE(f.Call("POST", "/v1/namespaces", R"({"namespace":["a","b"]})").status == 200);
  HttpResponse res = f.Call("GET", "/v1/namespaces/a%1Fb");
  REQUIRE(res.status == 200);
  CHECK(Json::parse(res.body)["namespace"] == Json::parse(R"(["a","b"])"));
  Json children = Json::parse(f.Call("GET", "/v1/namespaces?parent=a").body);
  CHECK(children["namespaces"] == Json::parse(R"([["a","b"]])"));
  CHECK(Error(f.Call("DELETE", "/v1/namespaces/a"))["type"] == "NamespaceNotEmptyException");
}

TEST_CASE("namespace property updates report updated, removed and missing keys") {
  Fixture f;
  REQUIRE(f.Call("POST", "/v1/namespaces", R"({"namespace":["n"],"properties":{"a":"1"}})")
              .status == 200);
  HttpResponse res = f.Call("POST", "/v1/namespaces/n/properties",
                            R"({"updates":{"b":"2"},"removals":["a","zz"]})");
  REQUIRE(res.status == 200);
  Json body = Json::parse(res.body);
  CHECK(body["updated"] == Json::parse(R"(["b"])"));
  CHECK(body["removed"] == Json::parse(R"(["a"])"));
  CHECK(body["missing"] == Json::parse(R"(["zz"])"));
  CHECK(Error(f.Call("POST", "/v1/namespaces/n/properties",
                     R"({"updates":{"b":"2"},"removals":["b"]})"))["code"] == 422);
}

}  // namespace
}  // namespace cairn::rest
