// create-namespaces, create-tables, list-tables.
#include <atomic>
#include <functional>
#include <iostream>
#include <thread>

#include "stats.h"
#include "table.h"
#include "workloads.h"

namespace cairn::bench {
namespace {

// Runs op(http, i) for i = 0, 1, ... from --clients threads until the bound; op returns
// (status, ms) of the operation, status 0 = transport error with the message in *error.
using Op = std::function<int(Http&, long, double*, std::string*)>;

Json RunClients(const Flags& flags, const Op& op) {
  int clients = static_cast<int>(flags.Int("clients", 4));
  Bound bound(flags.Num("duration"), flags.Int("max"));
  std::atomic<long> next{0};
  std::vector<Recorder> recorders(static_cast<size_t>(clients));
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      Http http(static_cast<int>(flags.Int("port")), flags.Str("prefix"));
      Recorder& rec = recorders[static_cast<size_t>(c)];
      for (long i; !bound.Expired() && (i = next.fetch_add(1)) < bound.max_count();) {
        double ms = 0;
        std::string error;
        int status = op(http, i, &ms, &error);
        if (status == 0) {
          rec.CountError(error);
          continue;
        }
        rec.CountStatus(status);
        if (status == 200) rec.Add(ms);
      }
    });
  }
  for (auto& t : threads) t.join();
  Recorder all;
  for (auto& r : recorders) all.Merge(r);
  return all.Summary(MsSince(start) / 1000);
}

int Print(const Json& out) {
  std::cout << out.dump() << std::endl;
  return 0;
}

int Result(const Reply& r, double* ms, std::string* error) {
  *ms = r.ms;
  *error = r.error;
  return r.status;
}

}  // namespace

int CreateNamespaces(const Flags& flags) {
  std::string prefix = flags.Str("prefix-name", "ns");
  return Print(RunClients(flags, [&](Http& http, long i, double* ms, std::string* error) {
    Json body = {{"namespace", Json::array({prefix + "_" + std::to_string(i)})}};
    return Result(http.Post("namespaces", body.dump(), false), ms, error);
  }));
}

int CreateTables(const Flags& flags) {
  std::string ns = flags.Str("ns");
  std::string prefix = flags.Str("prefix-name", "t");
  std::string schema = SchemaJson();
  return Print(RunClients(flags, [&](Http& http, long i, double* ms, std::string* error) {
    std::string body =
        R"({"name":")" + prefix + "_" + std::to_string(i) + R"(","schema":)" + schema + "}";
    return Result(http.Post("namespaces/" + Encode(ns) + "/tables", body, false), ms, error);
  }));
}

int ListTables(const Flags& flags) {
  std::string base = "namespaces/" + Encode(flags.Str("ns")) + "/tables";
  std::atomic<long> listed{0}, pages{0};
  Json out = RunClients(flags, [&](Http& http, long, double* ms, std::string* error) {
    auto start = Clock::now();
    std::string token;
    long n = 0;
    for (int page = 0; page < 100000; ++page) {
      Reply r = http.Get(token.empty() ? base : base + "?pageToken=" + Encode(token));
      ++pages;
      if (r.status != 200) return Result(r, ms, error);
      Json doc = Json::parse(r.body, nullptr, false);
      if (doc.is_discarded()) {
        *error = "unparsable listing";
        return 0;
      }
      n += static_cast<long>(doc.value("identifiers", Json::array()).size());
      const Json& next = doc.contains("next-page-token") ? doc["next-page-token"] : Json();
      if (!next.is_string() || next.get<std::string>().empty()) break;
      token = next.get<std::string>();
    }
    listed = n;
    *ms = MsSince(start);
    return 200;
  });
  out["tables"] = listed.load();
  long count = out["count"].get<long>();
  out["pages_per_listing"] = count ? static_cast<double>(pages.load()) / count : 0.0;
  return Print(out);
}

}  // namespace cairn::bench
