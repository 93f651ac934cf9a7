// cairn: an Apache Iceberg REST catalog. `cairn serve --help` lists every flag.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/mutant_metastore.h"
#include "catalog/postgres_metastore.h"
#include "catalog/sqlite_metastore.h"
#include "engine/local_file_io.h"
#include "engine/s3_settings.h"
#include "rest/http_server.h"
#include "rest/rest_api.h"

namespace {

struct Flag {
  const char* name;  // --name
  const char* env;   // environment variable
  const char* help;
  std::string value;  // default, then env, then command line
  bool repeatable = false;
};

std::vector<Flag> ServeFlags() {
  return {
      {"host", "CAIRN_HOST", "address to listen on", "127.0.0.1"},
      {"port", "CAIRN_PORT", "port to listen on; 0 picks a free one", "8181"},
      {"data-dir", "CAIRN_DATA_DIR", "folder for the default database and warehouse",
       "./cairn-data"},
      {"db", "CAIRN_DB",
       "metastore: sqlite:PATH or postgresql://USER@HOST:PORT/DB "
       "(default: sqlite:<data-dir>/cairn.db)",
       ""},
      {"warehouse", "CAIRN_WAREHOUSE",
       "root of new tables: a folder, file:///PATH or s3://BUCKET/PREFIX "
       "(default: <data-dir>/warehouse)",
       ""},
      {"allow-location", "CAIRN_ALLOW_LOCATIONS",
       "further location prefix clients may place tables under (repeatable; env: comma-separated)",
       "", true},
      {"s3-endpoint", "CAIRN_S3_ENDPOINT",
       "S3-compatible endpoint for an s3:// warehouse, e.g. http://127.0.0.1:9000 (else "
       "AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL; default AWS's https://s3.<region>.amazonaws.com)",
       ""},
      {"s3-client-endpoint", "CAIRN_S3_CLIENT_ENDPOINT",
       "the S3 endpoint as clients reach it, when not by --s3-endpoint (default: --s3-endpoint)",
       ""},
      {"s3-region", "CAIRN_S3_REGION",
       "S3 region used to sign requests (else AWS_REGION, AWS_DEFAULT_REGION; default us-east-1)",
       ""},
      {"s3-path-style", "CAIRN_S3_PATH_STYLE",
       "true: address buckets as ENDPOINT/bucket/key (most S3-compatible stores); "
       "false: as bucket.ENDPOINT/key",
       "false"},
      {"s3-access-key-id", "CAIRN_S3_ACCESS_KEY_ID", "S3 access key id (else AWS_ACCESS_KEY_ID)",
       ""},
      {"s3-secret-access-key", "CAIRN_S3_SECRET_ACCESS_KEY",
       "S3 secret access key (else AWS_SECRET_ACCESS_KEY)", ""},
      {"s3-session-token", "CAIRN_S3_SESSION_TOKEN",
       "S3 session token for temporary credentials (else AWS_SESSION_TOKEN)", ""},
      {"s3-conditional-writes", "CAIRN_S3_CONDITIONAL_WRITES",
       "probe: test at startup whether the store refuses a second If-None-Match: * write; "
       "on / off: skip the probe",
       "probe"},
      {"s3-vend-credentials", "CAIRN_S3_VEND_CREDENTIALS",
       "true: hand the S3 keys to clients in /v1/config and table configs", "false"},
      {"catalog-name", "CAIRN_CATALOG_NAME", "catalog_name column in the metastore", "cairn"},
      {"threads", "CAIRN_THREADS", "worker threads running requests (connections are multiplexed)",
       "16"},
      {"keep-alive-timeout-s", "CAIRN_KEEP_ALIVE_TIMEOUT_S",
       "seconds an idle keep-alive connection stays open", "60"},
      {"max-body-bytes", "CAIRN_MAX_BODY_BYTES", "largest accepted request body", "8388608"},
      {"commit-attempts", "CAIRN_COMMIT_ATTEMPTS",
       "compare-and-swap attempts per commit before answering 409", "10"},
      {"cache-mib", "CAIRN_CACHE_MIB", "metadata cache budget in MiB (parsed documents; a table of 100 000 snapshots takes ~350)", "1024"},
      {"test-mutant", "CAIRN_TEST_MUTANT",
       "testing only: serve with a deliberate commit bug to prove the exactly-once checker "
       "(cas-without-predicate | false-conflict); never in production",
       ""},
  };
}

void PrintHelp(const std::vector<Flag>& flags) {
  std::cout << "usage: cairn serve [--flag value]...\n\n"
               "Serves the Iceberg REST catalog API. Each flag may also be set by its\n"
               "environment variable; the command line wins.\n\n";
  for (const Flag& f : flags) {
    size_t width = std::string(f.name).size();
    std::cout << "  --" << f.name
              << (width < 18 ? std::string(18 - width, ' ') : "\n" + std::string(22, ' '))
              << f.help << "\n" << std::string(22, ' ') << "env " << f.env
              << (f.value.empty() ? "" : ", default " + f.value) << "\n";
  }
  std::cout << "  --help              this text\n";
}

Flag* Find(std::vector<Flag>& flags, const std::string& name) {
  for (Flag& f : flags) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

// Fills flags from the environment, then argv. Returns false (after printing why) on error.
bool ParseFlags(int argc, char** argv, std::vector<Flag>& flags, bool* help) {
  for (Flag& f : flags) {
    if (const char* v = std::getenv(f.env)) f.value = v;
  }
  std::map<std::string, bool> seen;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      return true;
    }
    if (arg.rfind("--", 0) != 0) {
      std::cerr << "cairn: unexpected argument '" << arg << "' (see cairn serve --help)\n";
      return false;
    }
    std::string name = arg.substr(2), value;
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      std::cerr << "cairn: flag --" << name << " needs a value\n";
      return false;
    }
    Flag* f = Find(flags, name);
    if (f == nullptr) {
      std::cerr << "cairn: unknown flag --" << name << " (see cairn serve --help)\n";
      return false;
    }
    if (f->repeatable && seen[name]) {
      f->value += "," + value;
    } else {
      f->value = value;
    }
    seen[name] = true;
  }
  return true;
}

bool ParseInt(const std::string& flag, const std::string& text, long min, long max, long* out) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < min || v > max) {
    std::cerr << "cairn: --" << flag << " must be an integer from " << min << " to " << max
              << ", got '" << text << "'\n";
    return false;
  }
  *out = v;
  return true;
}

std::string Absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  std::string rel = path.rfind("./", 0) == 0 ? path.substr(2) : path;
  return std::string(cwd) + "/" + rel;
}

bool MakeDir(const std::string& path) {
  std::string partial;
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      partial = path.substr(0, i);
      if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// Opens the metastore named by --db, creating a SQLite file's folder when missing.
cairn::engine::Result<std::shared_ptr<cairn::catalog::Metastore>> OpenMetastore(
    const std::string& db, bool postgres, const std::string& catalog_name) {
  if (postgres) {
    cairn::catalog::PostgresMetastore::Options o;
    o.url = db;
    o.catalog_name = catalog_name;
    ASSIGN_OR_RETURN(auto store, cairn::catalog::PostgresMetastore::Open(o));
    return std::shared_ptr<cairn::catalog::Metastore>(std::move(store));
  }
  cairn::catalog::SqliteMetastore::Options o;
  o.path = Absolute(db.substr(7));
  o.catalog_name = catalog_name;
  std::string dir = o.path.substr(0, o.path.rfind('/'));
  if (!dir.empty() && !MakeDir(dir)) {
    return cairn::engine::Status::IOError("cannot create folder " + dir);
  }
  ASSIGN_OR_RETURN(auto store, cairn::catalog::SqliteMetastore::Open(o));
  return std::shared_ptr<cairn::catalog::Metastore>(std::move(store));
}

// The FileIO of an s3:// warehouse, from the --s3-* flags (and AWS_* variables). Every allowed
// location must be in S3 too: the warehouse's FileIO serves them all.
cairn::engine::Result<cairn::engine::S3Warehouse> OpenS3(
    const std::function<std::string(const char*)>& get, const std::string& warehouse,
    const std::vector<std::string>& allowed) {
  for (const std::string& location : allowed) {
    if (location.rfind("s3://", 0) != 0) {
      return cairn::engine::Status::InvalidArgument(
          "--allow-location " + location + " is not in S3, and the warehouse is");
    }
  }
  cairn::engine::S3Settings s;
  s.endpoint = get("s3-endpoint");
  s.client_endpoint = get("s3-client-endpoint");
  s.region = get("s3-region");
  s.access_key_id = get("s3-access-key-id");
  s.secret_access_key = get("s3-secret-access-key");
  s.session_token = get("s3-session-token");
  s.conditional_writes = get("s3-conditional-writes");
  ASSIGN_OR_RETURN(s.path_style, cairn::engine::ParseBoolSetting("s3-path-style",
                                                                  get("s3-path-style")));
  ASSIGN_OR_RETURN(s.vend_credentials, cairn::engine::ParseBoolSetting(
                                           "s3-vend-credentials", get("s3-vend-credentials")));
  cairn::engine::ApplyAwsEnvironment(&s, [](const char* name) { return std::getenv(name); });
  return cairn::engine::OpenS3Warehouse(s, warehouse);
}

// Thousands of keep-alive clients need thousands of descriptors: lift the soft limit.
void RaiseOpenFileLimit() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

int Serve(int argc, char** argv) {
  std::vector<Flag> flags = ServeFlags();
  bool help = false;
  if (!ParseFlags(argc, argv, flags, &help)) return 2;
  if (help) {
    PrintHelp(flags);
    return 0;
  }
  auto get = [&](const char* name) { return Find(flags, name)->value; };
  long port, threads, max_body, attempts, cache_mib, keep_alive;
  if (!ParseInt("port", get("port"), 0, 65535, &port) ||
      !ParseInt("threads", get("threads"), 1, 4096, &threads) ||
      !ParseInt("keep-alive-timeout-s", get("keep-alive-timeout-s"), 1, 3600, &keep_alive) ||
      !ParseInt("max-body-bytes", get("max-body-bytes"), 1024, 1L << 31, &max_body) ||
      !ParseInt("commit-attempts", get("commit-attempts"), 1, 1000, &attempts) ||
      !ParseInt("cache-mib", get("cache-mib"), 1, 1 << 20, &cache_mib)) {
    return 2;
  }
  std::string data_dir = Absolute(get("data-dir"));
  std::string db = get("db");
  if (db.empty()) db = "sqlite:" + data_dir + "/cairn.db";
  bool postgres = db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0;
  if (!postgres && db.rfind("sqlite:", 0) != 0) {
    std::cerr << "cairn: --db must be sqlite:PATH or postgresql://..., got '" << db << "'\n";
    return 2;
  }
  std::string warehouse = get("warehouse").empty() ? data_dir + "/warehouse" : get("warehouse");
  if (warehouse.find("://") == std::string::npos && warehouse.rfind("file:", 0) != 0) {
    warehouse = Absolute(warehouse);
    if (!MakeDir(warehouse)) {
      std::cerr << "cairn: cannot create warehouse folder " << warehouse << "\n";
      return 1;
    }
    warehouse = "file://" + warehouse;
  }
  auto store = OpenMetastore(db, postgres, get("catalog-name"));
  if (!store.ok()) {
    std::cerr << "cairn: cannot open metastore: " << store.status().message() << "\n";
    return 1;
  }
  auto mutant = cairn::catalog::ParseMutant(get("test-mutant"));
  if (!mutant.ok()) {
    std::cerr << "cairn: --test-mutant: " << mutant.status().message() << "\n";
    return 2;
  }
  if (*mutant != cairn::catalog::Mutant::kNone) {
    std::cerr << "cairn: WARNING: serving with the deliberate bug '" << get("test-mutant")
              << "' (--test-mutant): commits are NOT safe\n";
  }
  cairn::catalog::CatalogOptions options;
  options.metastore = cairn::catalog::WithMutant(std::move(store).value(), *mutant);
  options.file_io = std::make_shared<cairn::engine::LocalFileIO>();
  if (warehouse.rfind("s3://", 0) == 0) {
    auto s3 = OpenS3(get, warehouse, SplitList(get("allow-location")));
    if (!s3.ok()) {
      std::cerr << "cairn: s3 warehouse " << warehouse << ": " << s3.status().message() << "\n";
      return 1;
    }
    std::cout << "cairn: s3 conditional writes (If-None-Match: *): " << s3->conditional_writes
              << std::endl;
    options.file_io = s3->file_io;
    options.client_config = s3->client_config;
  }
  options.warehouse = warehouse;
  options.allowed_locations = SplitList(get("allow-location"));
  options.max_commit_attempts = static_cast<int>(attempts);
  options.cache_bytes = static_cast<size_t>(cache_mib) << 20;
  cairn::catalog::Catalog catalog(std::move(options));
  cairn::rest::RestApi api(&catalog);

  cairn::rest::ServerOptions server_options;
  server_options.host = get("host");
  server_options.port = static_cast<int>(port);
  server_options.threads = static_cast<int>(threads);
  server_options.max_body_bytes = static_cast<size_t>(max_body);
  server_options.keep_alive_timeout_s = static_cast<int>(keep_alive);
  RaiseOpenFileLimit();
  cairn::rest::HttpServer server(&api, server_options);
  if (auto st = server.Bind(); !st.ok()) {
    std::cerr << "cairn: " << st.message() << "\n";
    return 1;
  }

  // Stop cleanly on SIGINT/SIGTERM: a thread waits for the signal and stops the server.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    server.Stop();
  });
  std::cout << "cairn listening on http://" << server_options.host << ":" << server.port()
            << " (metastore " << (postgres ? "postgresql" : db) << ", warehouse "
            << catalog.warehouse() << ")"
            << std::endl;
  server.Serve();
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command = argc > 1 ? argv[1] : "";
  if (command == "serve") return Serve(argc, argv);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << "usage: cairn serve [flags]   (cairn serve --help lists the flags)\n";
    return 0;
  }
  std::cerr << "usage: cairn serve [flags]   (cairn serve --help lists the flags)\n";
  return 2;
}
