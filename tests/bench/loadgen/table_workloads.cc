// populate, load, commit.
#include <atomic>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "stats.h"
#include "table.h"
#include "workloads.h"

namespace cairn::bench {
namespace {

Http Client(const Flags& flags) {
  return Http(static_cast<int>(flags.Int("port")), flags.Str("prefix"),
              static_cast<int>(flags.Int("timeout-s", 120)));
}

std::vector<std::string> Split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int Fail(const std::string& what) {
  std::cout << Json{{"error", what}}.dump() << std::endl;
  return 1;
}

}  // namespace

int Populate(const Flags& flags) {
  Http http = Client(flags);
  TableRef table{flags.Str("ns"), flags.Str("table")};
  long snapshots = flags.Int("snapshots");
  int batch = static_cast<int>(flags.Int("batch", 5000));
  auto start = Clock::now();
  if (std::string err = CreateNamespace(http, table.ns); !err.empty()) return Fail(err);
  TableState state;
  if (std::string err = CreateTable(http, table, &state); !err.empty()) return Fail(err);
  Ids ids;
  Recorder commits;
  for (long done = 0; done < snapshots;) {
    int n = static_cast<int>(std::min<long>(batch, snapshots - done));
    TableState next;
    std::string body = AppendBody(state, n, ids, &next);
    Reply r = http.Post(table.Path(), body, false);
    if (r.status != 200) {
      return Fail("populate " + table.name + " at " + std::to_string(done) + " snapshots: HTTP " +
                  std::to_string(r.status) + " " + r.error);
    }
    commits.Add(r.ms);
    state = next;
    done += n;
  }
  Json out = commits.Summary(MsSince(start) / 1000);
  out["snapshots"] = snapshots;
  out["last_commit_ms"] = commits.Percentile(100);
  std::cout << out.dump() << std::endl;
  return 0;
}

int LoadTables(const Flags& flags) {
  TableRef table{flags.Str("ns"), flags.Str("table")};
  std::string path = table.Path() + "?snapshots=" + flags.Str("snapshots", "all");
  bool conditional = flags.Has("if-none-match");
  int clients = static_cast<int>(flags.Int("clients", 4));
  std::atomic<long> issued{0};
  std::vector<Recorder> recorders(static_cast<size_t>(clients));
  std::atomic<size_t> bytes{0};
  std::string etag;
  double first_ms = 0;
  {  // one unmeasured load first: a cold cache is not what the loop measures; its ETag
    Http http = Client(flags);
    Reply first = http.Get(path, "", false);
    first_ms = first.ms;
    if (first.status != 200 || (conditional && first.etag.empty())) {
      return Fail("no table (or no ETag) at " + path + ": HTTP " + std::to_string(first.status));
    }
    if (conditional) etag = first.etag;
  }
  Bound bound(flags.Num("duration"), flags.Int("max"));
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      Http http = Client(flags);
      Recorder& rec = recorders[static_cast<size_t>(c)];
      while (!bound.Expired() && issued.fetch_add(1) < bound.max_count()) {
        Reply r = http.Get(path, etag, false);
        bytes += r.bytes;
        if (r.status == 0) {
          rec.CountError(r.error);
          continue;
        }
        rec.CountStatus(r.status);
        if (r.status == (conditional ? 304 : 200)) rec.Add(r.ms);
      }
    });
  }
  for (auto& t : threads) t.join();
  Recorder all;
  for (auto& r : recorders) all.Merge(r);
  Json out = all.Summary(MsSince(start) / 1000);
  out["bytes_per_response"] = all.count() ? bytes.load() / all.count() : 0;
  out["first_ms"] = first_ms;  // the unmeasured first load (possibly a cache miss)
  std::cout << out.dump() << std::endl;
  return 0;
}

int Commit(const Flags& flags) {
  std::vector<TableRef> tables;
  for (const std::string& name : Split(flags.Str("tables")))
    tables.push_back({flags.Str("ns"), name});
  if (tables.empty()) return Fail("no --tables");
  int writers = static_cast<int>(flags.Int("writers", 1));
  int attempts = static_cast<int>(flags.Int("attempts", 100));
  // Writer w owns the tables at w, w + writers, ...; with one table every writer shares it.
  // Their states are loaded before the clock starts.
  std::vector<std::vector<size_t>> mine(static_cast<size_t>(writers));
  std::vector<std::vector<TableState>> states(static_cast<size_t>(writers));
  {
    Http http = Client(flags);
    std::map<size_t, TableState> loaded;
    for (int w = 0; w < writers; ++w) {
      for (size_t t = static_cast<size_t>(w) % tables.size(); t < tables.size(); t += writers) {
        mine[w].push_back(t);
        if (!loaded.count(t)) {
          if (std::string err = LoadState(http, tables[t], &loaded[t]); !err.empty()) {
            return Fail(err);
          }
        }
        states[w].push_back(loaded[t]);
        if (tables.size() == 1) break;
      }
    }
  }
  Bound bound(flags.Num("duration"), flags.Int("max"));
  std::atomic<long> issued{0};
  std::vector<Recorder> recorders(static_cast<size_t>(writers));
  std::atomic<long> conflicts{0}, unfinished{0}, posts{0};
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      Http http = Client(flags);
      Ids ids;
      Recorder& rec = recorders[static_cast<size_t>(w)];
      std::vector<TableState>& state = states[w];
      for (size_t turn = 0; !bound.Expired() && issued.fetch_add(1) < bound.max_count(); ++turn) {
        size_t i = turn % mine[w].size();
        const TableRef& table = tables[mine[w][i]];
        auto begin = Clock::now();
        bool done = false;
        for (int a = 0; a < attempts && !done && !bound.Expired(); ++a) {
          TableState next;
          std::string body = AppendBody(state[i], 1, ids, &next);
          Reply r = http.Post(table.Path(), body, false);
          ++posts;
          if (r.status == 200) {
            state[i] = next;
            done = true;
            break;
          }
          if (r.status == 409) {
            ++conflicts;
          } else {
            rec.CountError(r.status ? "HTTP " + std::to_string(r.status) : r.error);
          }
          if (std::string err = LoadState(http, table, &state[i]); !err.empty()) {
            rec.CountError(err.substr(0, 120));
          }
        }
        if (done) {
          rec.Add(MsSince(begin));
          rec.CountStatus(200);
        } else {
          ++unfinished;  // out of attempts, or the deadline passed while retrying
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  Recorder all;
  for (auto& r : recorders) all.Merge(r);
  Json out = all.Summary(MsSince(start) / 1000);
  out["conflicts"] = conflicts.load();
  out["posts"] = posts.load();
  out["unfinished"] = unfinished.load();
  std::cout << out.dump() << std::endl;
  return 0;
}

}  // namespace cairn::bench
