// startup: process start to the first successful GET /v1/config, and resident memory.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <thread>

#include "http.h"
#include "stats.h"
#include "workloads.h"

namespace cairn::bench {
namespace {

// VmRSS of a process in KiB, 0 if unknown.
long RssKib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

void Stop(pid_t pid) {
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(pid, nullptr, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

}  // namespace

int Startup(const Flags& flags) {
  const std::vector<std::string>& cmd = flags.command();
  if (cmd.empty()) {
    std::cerr << "startup: no command after --\n";
    return 2;
  }
  int port = static_cast<int>(flags.Int("port"));
  double timeout_ms = flags.Num("timeout-s", 60) * 1000;
  std::string log = flags.Str("log", "/dev/null");
  std::vector<char*> argv;
  for (const std::string& a : cmd) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the load generator
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execvp(argv[0], argv.data());
    _exit(127);
  }
  if (pid < 0) {
    std::cerr << "startup: fork failed\n";
    return 1;
  }
  double ms = -1;
  int attempts = 0;
  while (MsSince(start) < timeout_ms) {
    ++attempts;
    httplib::Client client("127.0.0.1", port);
    client.set_connection_timeout(0, 200000);
    client.set_read_timeout(5, 0);
    client.set_tcp_nodelay(true);
    auto res = client.Get("/v1/config");
    if (res && res->status == 200) {
      ms = MsSince(start);
      break;
    }
    if (::waitpid(pid, nullptr, WNOHANG) == pid) {
      std::cout << Json{{"error", "server exited before answering"}}.dump() << std::endl;
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  Json out = {{"startup_ms", ms}, {"attempts", attempts}, {"rss_first_kib", RssKib(pid)}};
  std::this_thread::sleep_for(std::chrono::milliseconds(flags.Int("idle-ms", 1000)));
  out["rss_idle_kib"] = RssKib(pid);
  Stop(pid);
  std::cout << out.dump() << std::endl;
  return ms < 0 ? 1 : 0;
}

}  // namespace cairn::bench
