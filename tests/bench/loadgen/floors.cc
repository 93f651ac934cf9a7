// fsync-floor, cas-floor and commit-floor: the physical limits a durable commit runs into,
// measured by the same harness: one durable new file (as cairn's LocalFileIO writes it), one
// metastore compare-and-swap (as cairn's metastores run it), and the two in sequence.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <pqxx/pqxx>
#include <thread>

#include "stats.h"
#include "workloads.h"

namespace cairn::bench {
namespace {

bool FsyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

// write temp + fdatasync + link into place + unlink temp + fsync directory.
bool DurableCreate(const std::string& dir, const std::string& name, const std::string& data) {
  std::string path = dir + "/" + name, tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = ::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()) &&
            ::fdatasync(fd) == 0;
  ::close(fd);
  ok = ok && ::link(tmp.c_str(), path.c_str()) == 0;
  ::unlink(tmp.c_str());
  return ok && FsyncDir(dir);
}

// Runs body(thread, i) on `threads` threads until the bound; body returns true on success.
template <typename Body>
Json RunThreads(int threads, const Bound& bound, Body body) {
  std::vector<Recorder> recorders(static_cast<size_t>(threads));
  std::atomic<long> issued{0};
  auto start = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      Recorder& rec = recorders[static_cast<size_t>(t)];
      for (long i = 0; !bound.Expired() && issued.fetch_add(1) < bound.max_count(); ++i) {
        auto begin = Clock::now();
        if (body(t, i)) {
          rec.Add(MsSince(begin));
        } else {
          rec.CountError("failed");
        }
      }
    });
  }
  for (auto& p : pool) p.join();
  Recorder all;
  for (auto& r : recorders) all.Merge(r);
  Json out = all.Summary(MsSince(start) / 1000);
  out["threads"] = threads;
  return out;
}

constexpr const char* kCreateTable =
    "CREATE TABLE IF NOT EXISTS %s (catalog_name VARCHAR(255) NOT NULL, "
    "table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, "
    "metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000), "
    "version BIGINT NOT NULL DEFAULT 0, "
    "PRIMARY KEY (catalog_name, table_namespace, table_name))";

std::string CreateTableSql(const std::string& table) {
  std::string sql = kCreateTable;
  return sql.replace(sql.find("%s"), 2, table);
}

std::string Location(int t, long i) {
  return "file:/warehouse/bench/t" + std::to_string(t) + "/metadata/" + std::to_string(i) +
         "-00000000-0000-0000-0000-000000000000.metadata.json";
}

// A metastore pointer per thread t, swapped from Location(t, i - 1) to Location(t, i).
class Cas {
 public:
  virtual ~Cas() = default;
  // True if exactly one row changed and the transaction committed.
  virtual bool Swap(int t, long i) = 0;
};

// SQLite like cairn's: WAL, synchronous=FULL, 5 s busy timeout, BEGIN IMMEDIATE. mode "":
// each thread its own connection and transaction (SQLite's busy handler arbitrates); "mutex":
// threads take turns on an in-process mutex (as cairn's SqliteMetastore does); "group": one
// committer runs every pending swap in one transaction (group commit).
class SqliteCas final : public Cas {
 public:
  SqliteCas(const std::string& path, int threads, std::string mode)
      : mode_(std::move(mode)),
        dbs_(static_cast<size_t>(threads)),
        stmts_(static_cast<size_t>(threads)) {
    for (int t = 0; t < threads; ++t) {
      sqlite3_open_v2(path.c_str(), &dbs_[t],
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
      sqlite3_busy_timeout(dbs_[t], 5000);
      sqlite3_exec(dbs_[t], "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL", 0, 0, 0);
    }
    sqlite3_exec(dbs_[0], CreateTableSql("bench_tables").c_str(), 0, 0, 0);
    for (int t = 0; t < threads; ++t) {
      std::string sql = "INSERT OR REPLACE INTO bench_tables VALUES ('bench', 'ns', 't" +
                        std::to_string(t) + "', '" + Location(t, -1) + "', NULL, 0)";
      sqlite3_exec(dbs_[0], sql.c_str(), 0, 0, 0);
    }
    for (int t = 0; t < threads; ++t) {
      sqlite3_prepare_v2(dbs_[t],
                         "UPDATE bench_tables SET metadata_location = ?1, "
                         "previous_metadata_location = ?2, version = version + 1 "
                         "WHERE catalog_name = 'bench' AND table_namespace = 'ns' "
                         "AND table_name = ?3 AND metadata_location = ?2",
                         -1, &stmts_[t], nullptr);
    }
    if (mode_ == "group") committer_ = std::thread([this] { GroupLoop(); });
  }
  ~SqliteCas() override {
    if (committer_.joinable()) {
      {
        std::lock_guard lock(mu_);
        stop_ = true;
      }
      cv_.notify_all();
      committer_.join();
    }
    for (size_t t = 0; t < dbs_.size(); ++t) {
      sqlite3_finalize(stmts_[t]);
      sqlite3_close(dbs_[t]);
    }
  }

  bool Swap(int t, long i) override {
    if (mode_ == "group") return GroupSwap(t, i);
    std::unique_lock lock(mu_, std::defer_lock);
    if (mode_ == "mutex") lock.lock();
    sqlite3* db = dbs_[t];
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0) != SQLITE_OK) return false;
    bool ok = Update(db, stmts_[t], t, i);
    return sqlite3_exec(db, ok ? "COMMIT" : "ROLLBACK", 0, 0, 0) == SQLITE_OK && ok;
  }

 private:
  struct Pending {
    int t;
    long i;
    bool done = false, ok = false;
  };

  static bool Update(sqlite3* db, sqlite3_stmt* st, int t, long i) {
    std::string name = "t" + std::to_string(t), now = Location(t, i), before = Location(t, i - 1);
    sqlite3_bind_text(st, 1, now.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, before.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, name.c_str(), -1, SQLITE_TRANSIENT);
    bool ok = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(db) == 1;
    sqlite3_reset(st);
    return ok;
  }

  bool GroupSwap(int t, long i) {
    std::unique_lock lock(mu_);
    Pending p{t, i};
    queue_.push_back(&p);
    cv_.notify_all();
    done_cv_.wait(lock, [&] { return p.done; });
    return p.ok;
  }

  void GroupLoop() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      std::vector<Pending*> batch;
      batch.swap(queue_);
      lock.unlock();
      sqlite3* db = dbs_[0];
      bool ok = sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0) == SQLITE_OK;
      for (Pending* p : batch) p->ok = ok && Update(db, stmts_[0], p->t, p->i);
      ok = ok && sqlite3_exec(db, "COMMIT", 0, 0, 0) == SQLITE_OK;
      if (!ok) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
      lock.lock();
      for (Pending* p : batch) {
        p->ok = p->ok && ok;
        p->done = true;
      }
      done_cv_.notify_all();
    }
  }

  std::string mode_;
  std::vector<sqlite3*> dbs_;
  std::vector<sqlite3_stmt*> stmts_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::vector<Pending*> queue_;
  bool stop_ = false;
  std::thread committer_;
};

// PostgreSQL: the same UPDATE in its own transaction, one connection per thread.
class PostgresCas final : public Cas {
 public:
  PostgresCas(const std::string& url, int threads)
      : table_("bench_cas_" + std::to_string(::getpid())) {
    for (int t = 0; t < threads; ++t) conns_.push_back(std::make_unique<pqxx::connection>(url));
    pqxx::work w(*conns_[0]);
    w.exec(CreateTableSql(table_));
    for (int t = 0; t < threads; ++t) {
      w.exec_params("INSERT INTO " + table_ + " VALUES ('bench', 'ns', $1, $2, NULL, 0)",
                    "t" + std::to_string(t), Location(t, -1));
    }
    w.commit();
    std::string update = "UPDATE " + table_ +
                         " SET metadata_location = $1, previous_metadata_location = $2, "
                         "version = version + 1 WHERE catalog_name = 'bench' AND "
                         "table_namespace = 'ns' AND table_name = $3 AND metadata_location = $2";
    for (auto& c : conns_) {
      c->prepare("cas", update);
    }
  }
  ~PostgresCas() override {
    try {
      pqxx::work w(*conns_[0]);
      w.exec("DROP TABLE " + table_);
      w.commit();
    } catch (const std::exception&) {
    }
  }

  bool Swap(int t, long i) override {
    try {
      pqxx::work w(*conns_[t]);
      pqxx::result r =
          w.exec_prepared("cas", Location(t, i), Location(t, i - 1), "t" + std::to_string(t));
      w.commit();
      return r.affected_rows() == 1;
    } catch (const std::exception&) {
      return false;
    }
  }

 private:
  std::string table_;
  std::vector<std::unique_ptr<pqxx::connection>> conns_;
};

std::unique_ptr<Cas> OpenCas(const Flags& flags, int threads) {
  if (flags.Has("postgres")) return std::make_unique<PostgresCas>(flags.Str("postgres"), threads);
  return std::make_unique<SqliteCas>(flags.Str("sqlite"), threads, flags.Str("mode"));
}

std::vector<std::string> ThreadDirs(const std::string& dir, int threads) {
  std::vector<std::string> out;
  for (int t = 0; t < threads; ++t) {
    out.push_back(dir + "/t" + std::to_string(t));
    ::mkdir(out.back().c_str(), 0755);
  }
  return out;
}

int Print(Json out, const Flags& flags) {
  out["mode"] = flags.Has("postgres") ? "postgres" : flags.Str("mode", "own transactions");
  std::cout << out.dump() << std::endl;
  return 0;
}

int Error(const std::exception& e) {
  std::cout << Json{{"error", e.what()}}.dump() << std::endl;
  return 1;
}

}  // namespace

int FsyncFloor(const Flags& flags) {
  int threads = static_cast<int>(flags.Int("threads", 1));
  std::string data(static_cast<size_t>(flags.Int("bytes", 4096)), 'x');
  std::vector<std::string> dirs = ThreadDirs(flags.Str("dir"), threads);
  Bound bound(flags.Num("duration"), flags.Int("max", 1000000));
  Json out = RunThreads(threads, bound, [&](int t, long i) {
    return DurableCreate(dirs[t], std::to_string(i) + "-bench.metadata.json", data);
  });
  std::cout << out.dump() << std::endl;
  return 0;
}

int CasFloor(const Flags& flags) {
  int threads = static_cast<int>(flags.Int("threads", 1));
  try {
    std::unique_ptr<Cas> cas = OpenCas(flags, threads);
    Bound bound(flags.Num("duration"), flags.Int("max", 10000000));
    return Print(RunThreads(threads, bound, [&](int t, long i) { return cas->Swap(t, i); }), flags);
  } catch (const std::exception& e) {
    return Error(e);
  }
}

int CommitFloor(const Flags& flags) {
  int threads = static_cast<int>(flags.Int("threads", 1));
  std::string data(static_cast<size_t>(flags.Int("bytes", 4096)), 'x');
  std::vector<std::string> dirs = ThreadDirs(flags.Str("dir"), threads);
  try {
    std::unique_ptr<Cas> cas = OpenCas(flags, threads);
    Bound bound(flags.Num("duration"), flags.Int("max", 10000000));
    auto commit = [&](int t, long i) {
      std::string name = std::to_string(i) + "-bench.metadata.json";
      return DurableCreate(dirs[t], name, data) && cas->Swap(t, i);
    };
    return Print(RunThreads(threads, bound, commit), flags);
  } catch (const std::exception& e) {
    return Error(e);
  }
}

}  // namespace cairn::bench
