#include "table.h"

#include <chrono>

#include "stats.h"

namespace cairn::bench {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Describe(const Reply& r) {
  if (r.status == 0) return "no response: " + r.error;
  return "HTTP " + std::to_string(r.status) + ": " + r.body.substr(0, 300);
}

// Fills state from a LoadTableResult / CommitTableResponse body.
std::string ParseState(const std::string& body, TableState* state) {
  Json doc = Json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.contains("metadata")) return "unparsable table response";
  const Json& m = doc["metadata"];
  state->uuid = m.value("table-uuid", "");
  state->location = m.value("location", "");
  state->last_sequence = m.value("last-sequence-number", int64_t{0});
  state->main.reset();
  if (m.contains("refs") && m["refs"].contains("main")) {
    state->main = m["refs"]["main"]["snapshot-id"].get<int64_t>();
  }
  return "";
}

}  // namespace

Ids::Ids() : rng_(std::random_device{}()) {}

std::string SchemaJson() {
  return R"({"type":"struct","schema-id":0,"fields":[)"
         R"({"id":1,"name":"id","required":false,"type":"long"},)"
         R"({"id":2,"name":"data","required":false,"type":"string"},)"
         R"({"id":3,"name":"ts","required":false,"type":"timestamptz"}]})";
}

std::string AppendBody(const TableState& state, int count, Ids& ids, TableState* next) {
  *next = state;
  int64_t now = NowMs();
  std::string body = R"({"requirements":[{"type":"assert-table-uuid","uuid":")" + state.uuid +
                     R"("},{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":)" +
                     (state.main ? std::to_string(*state.main) : "null") + R"(}],"updates":[)";
  body.reserve(body.size() + static_cast<size_t>(count) * 560 + 100);
  for (int i = 0; i < count; ++i) {
    int64_t id = ids.Next();
    int64_t seq = next->last_sequence + 1;
    std::string s = std::to_string(seq);
    body += R"({"action":"add-snapshot","snapshot":{"snapshot-id":)" + std::to_string(id);
    if (next->main) body += R"(,"parent-snapshot-id":)" + std::to_string(*next->main);
    body += R"(,"sequence-number":)" + s + R"(,"timestamp-ms":)" + std::to_string(now) +
            R"(,"manifest-list":")" + state.location + "/metadata/snap-" + std::to_string(id) +
            "-1-" + state.uuid +
            R"(.avro","summary":{"operation":"append",)"
            R"("added-data-files":"1","added-records":"100","added-files-size":"10240",)"
            R"("changed-partition-count":"1","total-data-files":")" +
            s + R"(","total-delete-files":"0","total-records":")" + std::to_string(seq * 100) +
            R"(","total-files-size":")" + std::to_string(seq * 10240) +
            R"(","total-position-deletes":"0","total-equality-deletes":"0"},"schema-id":0}},)";
    next->main = id;
    next->last_sequence = seq;
  }
  body += R"({"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":)" +
          std::to_string(*next->main) + "}]}";
  return body;
}

std::string LoadState(Http& http, const TableRef& table, TableState* state) {
  Reply r = http.Get(table.Path() + "?snapshots=refs");
  if (r.status != 200) return "load " + table.name + ": " + Describe(r);
  return ParseState(r.body, state);
}

std::string CreateNamespace(Http& http, const std::string& ns) {
  Json body = {{"namespace", Json::array({ns})}};
  Reply r = http.Post("namespaces", body.dump());
  if (r.status == 200 || r.status == 409) return "";
  return "create namespace " + ns + ": " + Describe(r);
}

std::string CreateTable(Http& http, const TableRef& table, TableState* state) {
  std::string body = R"({"name":)" + Json(table.name).dump() + R"(,"schema":)" + SchemaJson() + "}";
  Reply r = http.Post("namespaces/" + Encode(table.ns) + "/tables", body, state != nullptr);
  if (r.status != 200) return "create table " + table.name + ": " + Describe(r);
  return state ? ParseState(r.body, state) : "";
}

}  // namespace cairn::bench
