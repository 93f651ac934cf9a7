// hold: many concurrent keep-alive connections (mostly idle, some slow) plus a prober that
// times a new connection's first response. Raw non-blocking sockets on one epoll thread, so
// a thousand connections cost the load generator one thread.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <iostream>
#include <thread>

#include "stats.h"
#include "workloads.h"

namespace cairn::bench {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

using std::chrono::milliseconds;

int OpenSocket(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 &&
      errno != EINPROGRESS) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Length of the first complete HTTP response in `in`, or 0 if it is not complete yet.
size_t CompleteResponse(const std::string& in) {
  size_t end = in.find("\r\n\r\n");
  if (end == std::string::npos) return 0;
  size_t body = end + 4;
  std::string head = in.substr(0, end);
  for (char& c : head) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  size_t cl = head.find("\r\ncontent-length:");
  if (cl != std::string::npos) {
    size_t n = std::stoul(head.substr(cl + 17));
    return in.size() >= body + n ? body + n : 0;
  }
  if (head.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
    size_t last = in.find("\r\n0\r\n\r\n", body - 2);
    return last == std::string::npos ? 0 : last + 7;
  }
  return body;  // 204/304 and friends: headers only
}

std::string Request(int port) {
  return "GET /v1/config HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
         "\r\nUser-Agent: cairn-bench\r\nAccept: application/json\r\n\r\n";
}

// One new connection, one request, bounded by cap_ms. Returns the time to the whole first
// response, or a negative number on timeout/failure.
double Probe(int port, double cap_ms) {
  auto start = Clock::now();
  int fd = OpenSocket(port);
  if (fd < 0) return -1;
  std::string req = Request(port), in;
  size_t sent = 0;
  double result = -1;
  char buf[4096];
  while (MsSince(start) < cap_ms) {
    pollfd p{fd, static_cast<short>(sent < req.size() ? POLLOUT : POLLIN), 0};
    int wait = static_cast<int>(cap_ms - MsSince(start)) + 1;
    if (::poll(&p, 1, wait) <= 0) continue;
    if (sent < req.size()) {
      ssize_t n = ::send(fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EINPROGRESS) break;
      if (n > 0) sent += static_cast<size_t>(n);
      continue;
    }
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n == 0 || (n < 0 && errno != EAGAIN)) break;
    if (n > 0) in.append(buf, static_cast<size_t>(n));
    if (CompleteResponse(in) > 0) {
      result = MsSince(start);
      break;
    }
  }
  ::close(fd);
  return result;
}

struct Conn {
  enum State { kClosed, kConnecting, kSending, kReading, kIdle, kPause };
  int fd = -1;
  bool slow = false;
  bool answered = false;
  State state = kClosed;
  size_t sent = 0;
  std::string in;
  Clock::time_point next = Clock::now();  // when a timed state acts (kClosed, kSending, kPause)
};

class Holder {
 public:
  Holder(int port, int conns, int slow, const Flags& flags)
      : port_(port),
        request_(Request(port)),
        conns_(static_cast<size_t>(conns)),
        chunk_(static_cast<size_t>(flags.Int("slow-chunk", 8))),
        slow_interval_(flags.Int("slow-interval-ms", 200)),
        slow_pause_(flags.Int("slow-pause-ms", 1000)) {
    for (int i = 0; i < slow; ++i)
      conns_[static_cast<size_t>(i) * conns_.size() / slow].slow = true;
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
  }
  ~Holder() {
    for (Conn& c : conns_) {
      if (c.fd >= 0) ::close(c.fd);
    }
    ::close(epoll_);
  }

  // Runs until stop() or the deadline; calls on_ready once every connection got a response
  // or ready_deadline passed.
  void Run(Clock::time_point ready_deadline, Clock::time_point deadline,
           const std::function<void()>& on_ready) {
    bool ready = false;
    epoll_event events[256];
    while (!g_stop && Clock::now() < deadline) {
      int n = ::epoll_wait(epoll_, events, 256, 10);
      for (int e = 0; e < n; ++e) OnEvent(events[e].data.u32, events[e].events);
      auto now = Clock::now();
      for (size_t i = 0; i < conns_.size(); ++i) OnTimer(i, now);
      if (!ready && (answered_ == conns_.size() || now >= ready_deadline)) {
        ready = true;
        on_ready();
      }
    }
  }

  Json Summary() const {
    size_t open = 0;
    for (const Conn& c : conns_) open += c.fd >= 0 && c.state != Conn::kConnecting;
    return {{"answered", answered_},
            {"open_at_end", open},
            {"opens", opens_},
            {"server_closes", closes_},
            {"responses", responses_}};
  }
  size_t answered() const { return answered_; }

 private:
  void Open(size_t i) {
    Conn& c = conns_[i];
    c.fd = OpenSocket(port_);
    ++opens_;
    if (c.fd < 0) {
      c.state = Conn::kClosed;
      c.next = Clock::now() + milliseconds(200);
      return;
    }
    c.state = Conn::kConnecting;
    c.in.clear();
    epoll_event ev{};
    ev.events = EPOLLOUT | EPOLLIN;
    ev.data.u32 = static_cast<uint32_t>(i);
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &ev);
  }

  void Close(size_t i, int reopen_after_ms) {
    Conn& c = conns_[i];
    ::epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
    ::close(c.fd);
    c.fd = -1;
    c.state = Conn::kClosed;
    c.next = Clock::now() + milliseconds(reopen_after_ms);
  }

  void Watch(size_t i, uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u32 = static_cast<uint32_t>(i);
    ::epoll_ctl(epoll_, EPOLL_CTL_MOD, conns_[i].fd, &ev);
  }

  void StartRequest(size_t i) {
    Conn& c = conns_[i];
    c.state = Conn::kSending;
    c.sent = 0;
    Watch(i, EPOLLIN);
    SendSome(i);
  }

  // Fast connections send the whole request; slow ones one chunk per interval.
  void SendSome(size_t i) {
    Conn& c = conns_[i];
    size_t want = c.slow ? std::min(chunk_, request_.size() - c.sent) : request_.size() - c.sent;
    ssize_t n = ::send(c.fd, request_.data() + c.sent, want, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN) {
      Close(i, 0);
      return;
    }
    if (n > 0) c.sent += static_cast<size_t>(n);
    if (c.sent == request_.size()) {
      c.state = Conn::kReading;
    } else {
      c.next = Clock::now() + milliseconds(c.slow ? slow_interval_ : 1);
    }
  }

  void OnEvent(uint32_t i, uint32_t events) {
    Conn& c = conns_[i];
    if (c.fd < 0) return;
    if (c.state == Conn::kConnecting) {
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0 || (events & (EPOLLERR | EPOLLHUP))) {
        Close(i, 200);
        return;
      }
      if (events & EPOLLOUT) StartRequest(i);
      return;
    }
    if (!(events & (EPOLLIN | EPOLLERR | EPOLLHUP))) return;
    char buf[16384];
    for (;;) {
      ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
      if (n > 0) {
        c.in.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EAGAIN) break;
      ++closes_;  // closed by the server (keep-alive timeout, limit) or reset
      Close(i, 0);
      return;
    }
    while (size_t used = CompleteResponse(c.in)) {
      c.in.erase(0, used);
      ++responses_;
      if (!c.answered) {
        c.answered = true;
        ++answered_;
      }
      if (c.state == Conn::kReading) {
        c.state = c.slow ? Conn::kPause : Conn::kIdle;
        c.next = Clock::now() + milliseconds(slow_pause_);
      }
    }
  }

  void OnTimer(size_t i, Clock::time_point now) {
    Conn& c = conns_[i];
    if (now < c.next) return;
    switch (c.state) {
      case Conn::kClosed:
        Open(i);
        break;
      case Conn::kSending:
        SendSome(i);
        break;
      case Conn::kPause:
        StartRequest(i);
        break;
      default:
        break;
    }
  }

  int port_;
  std::string request_;
  std::vector<Conn> conns_;
  size_t chunk_;
  long slow_interval_, slow_pause_;
  int epoll_;
  size_t answered_ = 0, opens_ = 0, closes_ = 0, responses_ = 0;
};

}  // namespace

int Hold(const Flags& flags) {
  signal(SIGTERM, OnSignal);
  signal(SIGINT, OnSignal);
  int port = static_cast<int>(flags.Int("port"));
  int conns = static_cast<int>(flags.Int("conns", 1000));
  int slow = static_cast<int>(flags.Int("slow", conns / 10));
  double probe_cap_ms = flags.Num("probe-cap-ms", 5000);
  long probe_every = flags.Int("probe-ms", 50);
  auto start = Clock::now();
  auto deadline = start + milliseconds(static_cast<long>(flags.Num("duration") * 1000));
  auto ready_deadline = start + milliseconds(static_cast<long>(flags.Num("ready-s", 10) * 1000));

  std::atomic<bool> probing{true};
  Recorder probes;
  long probe_failures = 0;
  std::thread prober([&] {
    while (probing) {
      auto begin = Clock::now();
      double ms = Probe(port, probe_cap_ms);
      if (ms < 0) {
        ++probe_failures;
        probes.Add(probe_cap_ms);
      } else {
        probes.Add(ms);
      }
      std::this_thread::sleep_until(begin + milliseconds(probe_every));
    }
  });

  Holder holder(port, conns, slow, flags);
  double ready_ms = 0;
  holder.Run(ready_deadline, deadline, [&] {
    ready_ms = MsSince(start);
    std::cout << Json{{"event", "ready"}, {"ms", ready_ms}, {"answered", holder.answered()}}.dump()
              << std::endl;
  });
  probing = false;
  prober.join();
  Json out = holder.Summary();
  out["conns"] = conns;
  out["slow"] = slow;
  out["ready_ms"] = ready_ms;
  out["probe"] = probes.Summary(MsSince(start) / 1000);
  out["probe"]["failures"] = probe_failures;
  std::cout << out.dump() << std::endl;
  return 0;
}

}  // namespace cairn::bench
