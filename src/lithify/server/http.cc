// The request reader and the poll() loop of `lithify serve`. See http.h for why the server
// reads requests itself and what it bounds.
#include "lithify/server/http.h"

#include "lithify/io/uri.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "lithify/base/macros.h"

namespace lithify::server {

// ---- messages ----

const std::string* HttpRequest::Header(std::string_view lower_name) const {
  for (const auto& [k, v] : headers) {
    if (k == lower_name) return &v;
  }
  return nullptr;
}

size_t HttpRequest::HeaderCount(std::string_view lower_name) const {
  return static_cast<size_t>(
      std::count_if(headers.begin(), headers.end(), [&](const auto& h) { return h.first == lower_name; }));
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Content";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
  }
}

std::string SerializeResponse(const HttpResponse& res) {
  std::string out = fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
                                res.status, ReasonPhrase(res.status), res.content_type, res.body.size());
  for (const auto& [k, v] : res.headers) out += fmt::format("{}: {}\r\n", k, v);
  out += "\r\n";
  if (!res.head_only) out += res.body;
  return out;
}

namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// RFC 9110 token characters (header names, methods).
bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> PercentDecode(std::string_view s, bool plus_is_space) {
  // One percent decoder (io/uri.h); a query's literal '+' is a space, so it is replaced
  // before decoding, which keeps an escaped %2B a '+'.
  std::string text(s);
  if (plus_is_space) std::replace(text.begin(), text.end(), '+', ' ');
  Result<std::string> decoded = io::PercentDecode(text);
  if (!decoded.ok()) return std::nullopt;
  return std::move(*decoded);
}

std::optional<std::vector<std::pair<std::string, std::string>>> ParseQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    std::optional<std::string> k = PercentDecode(part.substr(0, eq), true);
    std::optional<std::string> v =
        PercentDecode(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1), true);
    if (!k || !v) return std::nullopt;
    out.emplace_back(std::move(*k), std::move(*v));
  }
  return out;
}

// ---- RequestReader ----

void RequestReader::Refuse(int status, std::string message) {
  state_ = State::kError;
  error_status_ = status;
  error_message_ = std::move(message);
}

RequestReader::State RequestReader::Feed(std::string_view data) {
  if (state_ == State::kHeaders) {
    // Held: at most max_header_bytes plus the blank line that ends them. The end may
    // straddle two reads, so the search starts a little before the new bytes.
    const size_t old_size = head_.size();
    const size_t from = old_size >= 3 ? old_size - 3 : 0;
    head_.append(data.substr(0, std::min(data.size(), limits_.max_header_bytes + 4 - old_size)));
    const size_t end = head_.find("\r\n\r\n", from);
    if (end == std::string::npos) {
      if (head_.size() > limits_.max_header_bytes) {
        Refuse(431, fmt::format("request headers exceed {} bytes", limits_.max_header_bytes));
      }
      return state_;
    }
    data.remove_prefix(end + 4 - old_size);
    head_.resize(end + 2);  // keep the last header's CRLF
    ParseHeaders(head_);
    head_.clear();
    head_.shrink_to_fit();
    if (state_ == State::kError) return state_;
    if (header_check_) {
      if (std::optional<HttpResponse> refused = header_check_(req_)) {
        refusal_ = std::move(*refused);
        Refuse(refusal_->status, "refused");
        return state_;
      }
    }
    // Checked after the access rules: a request refused by them says so, whatever its size.
    if (!chunked_ && remaining_ > limits_.max_body_bytes) {
      Refuse(413, fmt::format("request body of {} bytes exceeds the limit of {} bytes", remaining_,
                              limits_.max_body_bytes));
      return state_;
    }
    const std::string* expect = req_.Header("expect");
    if (expect && req_.has_body && ToLower(*expect) == "100-continue") wants_continue_ = true;
    state_ = State::kBody;
  }
  if (state_ == State::kBody) FeedBody(data);
  return state_;
}

void RequestReader::ParseHeaders(std::string_view head) {
  size_t eol = head.find("\r\n");
  std::string_view line = head.substr(0, eol);
  head.remove_prefix(eol + 2);
  // Request line: METHOD SP TARGET SP HTTP/1.x
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Refuse(400, "malformed request line");
  }
  req_.method = std::string(line.substr(0, sp1));
  req_.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  req_.version = std::string(line.substr(sp2 + 1));
  if (!IsToken(req_.method)) return Refuse(400, "malformed request method");
  if (req_.version != "HTTP/1.1" && req_.version != "HTTP/1.0") {
    return Refuse(req_.version.rfind("HTTP/", 0) == 0 ? 505 : 400, "only HTTP/1.0 and HTTP/1.1 are served");
  }
  // Origin-form only ("/path?query"): this is not a proxy.
  if (req_.target.empty() || req_.target[0] != '/') return Refuse(400, "request target must be a path");
  size_t q = req_.target.find('?');
  std::optional<std::string> path = PercentDecode(std::string_view(req_.target).substr(0, q), false);
  if (!path || path->find('\0') != std::string::npos) return Refuse(400, "malformed request path");
  req_.path = std::move(*path);
  if (q != std::string::npos) req_.query = req_.target.substr(q + 1);

  while (!head.empty()) {
    eol = head.find("\r\n");
    line = head.substr(0, eol);
    head.remove_prefix(eol + 2);
    size_t colon = line.find(':');
    // No obsolete line folding, no whitespace before the colon (request smuggling vectors).
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) return Refuse(400, "malformed header line");
    std::string_view value = Trim(line.substr(colon + 1));
    for (char c : value) {
      if (c == '\0' || c == '\r' || c == '\n') return Refuse(400, "malformed header value");
    }
    req_.headers.emplace_back(ToLower(line.substr(0, colon)), std::string(value));
  }

  const std::string* te = req_.Header("transfer-encoding");
  const std::string* cl = req_.Header("content-length");
  if (te) {
    if (req_.HeaderCount("transfer-encoding") > 1 || ToLower(*te) != "chunked") {
      return Refuse(501, "only 'Transfer-Encoding: chunked' is supported");
    }
    if (cl) return Refuse(400, "both Content-Length and Transfer-Encoding given");
    chunked_ = true;
    req_.has_body = true;
  } else if (cl) {
    for (const auto& [k, v] : req_.headers) {
      if (k == "content-length" && v != *cl) return Refuse(400, "conflicting Content-Length headers");
    }
    uint64_t n = 0;
    auto [p, ec] = std::from_chars(cl->data(), cl->data() + cl->size(), n);
    if (cl->empty() || ec != std::errc() || p != cl->data() + cl->size()) return Refuse(400, "malformed Content-Length");
    remaining_ = n;
    req_.has_body = n > 0;
  }
}

void RequestReader::FeedBody(std::string_view& data) {
  if (chunked_) return FeedChunked(data);
  size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, data.size()));
  req_.body.append(data.substr(0, n));
  data.remove_prefix(n);
  remaining_ -= n;
  if (remaining_ == 0) state_ = State::kComplete;
}

bool RequestReader::TakeLine(std::string_view& data, size_t max_len, std::string& line) {
  size_t nl = data.find('\n');
  line.append(data.substr(0, std::min(nl, data.size())));
  data.remove_prefix(nl == std::string_view::npos ? data.size() : nl + 1);
  if (line.size() > max_len) {
    Refuse(400, "malformed chunked body (line too long)");
    return false;
  }
  if (nl == std::string_view::npos) return false;
  if (line.empty() || line.back() != '\r') {
    Refuse(400, "malformed chunked body (expected CRLF)");
    return false;
  }
  line.pop_back();
  return true;
}

void RequestReader::FeedChunked(std::string_view& data) {
  constexpr size_t kMaxLine = 1024;
  while (state_ == State::kBody && !data.empty()) {
    switch (chunk_state_) {
      case Chunk::kSize: {
        if (!TakeLine(data, kMaxLine, line_)) break;
        std::string_view size = std::string_view(line_).substr(0, line_.find(';'));  // chunk extensions ignored
        size = Trim(size);
        uint64_t n = 0;
        auto [p, ec] = std::from_chars(size.data(), size.data() + size.size(), n, 16);
        if (size.empty() || ec != std::errc() || p != size.data() + size.size()) {
          return Refuse(400, "malformed chunked body (bad chunk size)");
        }
        line_.clear();
        // Refused as soon as the size is known: the chunk's bytes are never read.
        if (n > limits_.max_body_bytes - req_.body.size()) {
          return Refuse(413, fmt::format("chunked request body exceeds the limit of {} bytes", limits_.max_body_bytes));
        }
        remaining_ = n;
        chunk_state_ = n == 0 ? Chunk::kTrailer : Chunk::kData;
        break;
      }
      case Chunk::kData: {
        size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, data.size()));
        req_.body.append(data.substr(0, n));
        data.remove_prefix(n);
        remaining_ -= n;
        if (remaining_ == 0) chunk_state_ = Chunk::kDataEnd;
        break;
      }
      case Chunk::kDataEnd: {
        if (!TakeLine(data, 2, line_)) break;
        if (!line_.empty()) return Refuse(400, "malformed chunked body (data longer than its chunk size)");
        chunk_state_ = Chunk::kSize;
        break;
      }
      case Chunk::kTrailer: {
        size_t before = line_.size();
        bool done = TakeLine(data, kMaxLine, line_);
        trailer_bytes_ += line_.size() - before;
        if (trailer_bytes_ > limits_.max_header_bytes) return Refuse(431, "chunked trailers too large");
        if (!done) break;
        if (line_.empty()) {
          state_ = State::kComplete;  // trailers are read and dropped
        }
        line_.clear();
        break;
      }
    }
  }
}

// ---- the server loop ----

namespace {

using Clock = std::chrono::steady_clock;

struct Conn {
  enum class Phase { kReading, kHandling, kWriting, kLingering };
  explicit Conn(int fd, HttpLimits limits, Clock::time_point deadline)
      : fd(fd), reader(limits), deadline(deadline) {}
  ~Conn() {
    if (fd >= 0) ::close(fd);
  }
  int fd;
  RequestReader reader;
  Phase phase = Phase::kReading;
  Clock::time_point accepted = Clock::now();
  Clock::time_point deadline;  // of the current phase
  std::string out;             // bytes to write
  size_t written = 0;
};

// Completed handler work, passed from the workers back to the poll thread.
struct Done {
  uint64_t id;
  std::string bytes;
};

// The server's own long-lived threads, not base/thread_pool.h: the shared pools are for
// bounded work that a caller waits for, while these wait on the poll thread's queue for
// the server's whole life (and the poll thread on sockets). On the shared pools they
// would hold threads forever, and a handler (an optimize --dry-run reading a table)
// still uses the shared pools from here, caller-runs keeping it deadlock-free.
class WorkerPool {
 public:
  WorkerPool(int n, std::function<HttpResponse(const HttpRequest&)> handle,
             std::function<HttpResponse(int, const std::string&)> error, int wake_fd)
      : handle_(std::move(handle)), error_(std::move(error)), wake_fd_(wake_fd) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Run(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  void Submit(uint64_t id, HttpRequest req) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.emplace_back(id, std::move(req));
    }
    cv_.notify_one();
  }
  std::vector<Done> TakeDone() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(done_, {});
  }

 private:
  void Run() {
    for (;;) {
      std::pair<uint64_t, HttpRequest> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
        if (stop_) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      HttpResponse res;
      try {
        res = handle_(job.second);
      } catch (const std::exception& e) {
        res = error_(500, fmt::format("internal error: {}", e.what()));
      }
      res.head_only = job.second.method == "HEAD";
      std::string bytes = SerializeResponse(res);
      {
        std::lock_guard<std::mutex> lock(mu_);
        done_.push_back(Done{job.first, std::move(bytes)});
      }
      uint64_t one = 1;
      [[maybe_unused]] ssize_t w = ::write(wake_fd_, &one, sizeof(one));
    }
  }

  std::function<HttpResponse(const HttpRequest&)> handle_;
  std::function<HttpResponse(int, const std::string&)> error_;
  int wake_fd_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::deque<std::pair<uint64_t, HttpRequest>> jobs_;
  std::vector<Done> done_;
  std::vector<std::thread> threads_;
};

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL, 0) | O_NONBLOCK); }

// Binds the first address of host:port that accepts a bind. SO_REUSEADDR only (not
// SO_REUSEPORT, which would let a second `lithify serve` silently share a port in use).
Result<int> Listen(const std::string& bracketed_host, int port, int* bound_port) {
  // "[::1]" as written in URLs is "::1" to getaddrinfo.
  std::string host = bracketed_host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0) {
    return Status::IOError("cannot bind to {}:{}: {}", host, port, ::gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> guard(res, ::freeaddrinfo);
  std::string last_error = "no address";
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      sockaddr_storage ss{};
      socklen_t len = sizeof(ss);
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
      *bound_port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                                   : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
      SetNonBlocking(fd);
      return fd;
    }
    last_error = std::strerror(errno);
    ::close(fd);
  }
  if (port == 0) return Status::IOError("cannot bind to {}: {}", host, last_error);
  return Status::IOError("cannot bind to {}:{} ({}: in use, or not a local address)", host, port, last_error);
}

class Loop {
 public:
  Loop(const TransportOptions& o, int listen_fd, int wake_fd)
      : o_(o), listen_fd_(listen_fd), wake_fd_(wake_fd),
        pool_(o.workers > 0 ? o.workers : std::clamp<int>(static_cast<int>(std::thread::hardware_concurrency()), 2, 8),
              o.handle, o.error_response, wake_fd) {
    // Never more connections than descriptors (the listener, the eventfd, the tables'
    // files and the standard streams need some).
    rlimit rl{};
    size_t fd_room = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 128
                         ? static_cast<size_t>(rl.rlim_cur) - 64
                         : 64;
    max_connections_ = std::max<size_t>(1, std::min(o.max_connections, fd_room));
  }

  void Run() {
    std::vector<pollfd> fds;
    std::vector<uint64_t> ids;
    while (!(o_.should_stop && o_.should_stop())) {
      fds.clear();
      ids.clear();
      fds.push_back({listen_fd_, static_cast<short>(Clock::now() < paused_until_ ? 0 : POLLIN), 0});
      fds.push_back({wake_fd_, POLLIN, 0});
      Clock::time_point next = Clock::now() + std::chrono::milliseconds(100);
      for (auto& [id, c] : conns_) {
        next = std::min(next, c->deadline);
        if (c->phase == Conn::Phase::kHandling) continue;
        fds.push_back({c->fd, static_cast<short>(c->phase == Conn::Phase::kWriting ? POLLOUT : POLLIN), 0});
        ids.push_back(id);
      }
      auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
      int n = ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<int64_t>(wait + 1, 0, 100)));
      if (n < 0 && errno != EINTR) break;
      if (n > 0) {
        for (size_t i = 2; i < fds.size(); ++i) {
          if (fds[i].revents) OnReady(ids[i - 2], fds[i].revents);
        }
        if (fds[1].revents & POLLIN) OnWake();
        if (fds[0].revents & POLLIN) Accept();
      }
      Expire();
    }
  }

 private:
  void Accept() {
    for (;;) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        // Out of descriptors: make room, or the listening socket stays readable and the
        // loop would spin; the pending client is accepted on the next round.
        if ((errno == EMFILE || errno == ENFILE) && !EvictOldestReader()) paused_until_ = Clock::now() + std::chrono::milliseconds(50);
        return;
      }
      if (conns_.size() >= max_connections_ && !EvictOldestReader()) {
        // Every slot is busy with a handler or an answer: say so instead of queueing.
        std::string bytes = SerializeResponse(o_.error_response(503, "too many connections; try again"));
        [[maybe_unused]] ssize_t w = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        ::close(fd);
        continue;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      uint64_t id = next_id_++;
      auto conn = std::make_unique<Conn>(fd, o_.limits, Clock::now() + o_.header_timeout);
      conn->reader.set_header_check(o_.check_headers);
      conns_.emplace(id, std::move(conn));
    }
  }

  // Makes room for a new connection: closes one that is only waiting for its client to
  // close (already answered), else the one that has been sending its request for
  // longest. False when every connection is being handled or answered.
  bool EvictOldestReader() {
    auto victim = conns_.end();
    auto rank = [](const Conn& c) { return c.phase == Conn::Phase::kLingering ? 0 : 1; };
    for (auto it = conns_.begin(); it != conns_.end(); ++it) {
      const Conn& c = *it->second;
      if (c.phase != Conn::Phase::kReading && c.phase != Conn::Phase::kLingering) continue;
      if (victim == conns_.end() || rank(c) < rank(*victim->second) ||
          (rank(c) == rank(*victim->second) && c.accepted < victim->second->accepted)) {
        victim = it;
      }
    }
    if (victim == conns_.end()) return false;
    conns_.erase(victim);
    return true;
  }

  void OnReady(uint64_t id, short revents) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    Conn& c = *it->second;
    if (c.phase == Conn::Phase::kWriting) {
      if (revents & (POLLERR | POLLNVAL)) return Close(id);
      return Write(id, c);
    }
    char buf[16 * 1024];
    ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) return Close(id);  // the client closed (or reset) before a complete request
    if (c.phase == Conn::Phase::kLingering) return;  // the rest of a refused request: discarded
    const bool had_headers = c.reader.state() != RequestReader::State::kHeaders;
    RequestReader::State st = c.reader.Feed(std::string_view(buf, static_cast<size_t>(n)));
    if (st == RequestReader::State::kError) {
      const std::optional<HttpResponse>& refusal = c.reader.refusal();
      Answer(c, SerializeResponse(refusal ? *refusal
                                          : o_.error_response(c.reader.error_status(), c.reader.error_message())));
      return Write(id, c);
    }
    if (!had_headers && st != RequestReader::State::kHeaders) {
      if (c.reader.TakeContinue()) {
        // Interim answer, written now: a few bytes into an empty socket buffer.
        static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
        [[maybe_unused]] ssize_t w = ::send(c.fd, kContinue, sizeof(kContinue) - 1, MSG_NOSIGNAL);
      }
      c.deadline = Clock::now() + o_.body_timeout;
    }
    if (st == RequestReader::State::kComplete) {
      c.phase = Conn::Phase::kHandling;
      c.deadline = Clock::time_point::max();
      pool_.Submit(id, std::move(c.reader.request()));
    }
  }

  // Queues `bytes` as the connection's answer (written under the write deadline).
  void Answer(Conn& c, std::string bytes) {
    c.out = std::move(bytes);
    c.written = 0;
    c.phase = Conn::Phase::kWriting;
    c.deadline = Clock::now() + o_.write_timeout;
  }

  void Write(uint64_t id, Conn& c) {
    while (c.written < c.out.size()) {
      ssize_t n = ::send(c.fd, c.out.data() + c.written, c.out.size() - c.written, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
      if (n <= 0) return Close(id);
      c.written += static_cast<size_t>(n);
    }
    c.out.clear();
    c.out.shrink_to_fit();
    // Half-close, then read and discard until the client closes (bounded in time):
    // closing with unread input would reset the connection, and a reset can destroy the
    // answer before the client has read it (a refused upload still being sent).
    ::shutdown(c.fd, SHUT_WR);
    c.phase = Conn::Phase::kLingering;
    c.deadline = Clock::now() + o_.linger_timeout;
  }

  void OnWake() {
    uint64_t v;
    [[maybe_unused]] ssize_t r = ::read(wake_fd_, &v, sizeof(v));
    for (Done& d : pool_.TakeDone()) {
      auto it = conns_.find(d.id);
      if (it == conns_.end()) continue;
      Answer(*it->second, std::move(d.bytes));
      Write(d.id, *it->second);
    }
  }

  void Expire() {
    const Clock::time_point now = Clock::now();
    std::vector<uint64_t> expired;
    for (auto& [id, c] : conns_) {
      if (c->deadline <= now) expired.push_back(id);
    }
    for (uint64_t id : expired) {
      Conn& c = *conns_[id];
      if (c.phase == Conn::Phase::kReading) {
        const bool headers = c.reader.state() == RequestReader::State::kHeaders;
        std::string msg = headers ? fmt::format("request headers not received within {} ms", o_.header_timeout.count())
                                  : fmt::format("request body not received within {} ms", o_.body_timeout.count());
        // Best effort, never waited for: the client is not reading promptly either.
        std::string bytes = SerializeResponse(o_.error_response(408, msg));
        [[maybe_unused]] ssize_t w = ::send(c.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      }
      Close(id);
    }
  }

  void Close(uint64_t id) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    conns_.erase(it);
  }

  const TransportOptions& o_;
  int listen_fd_;
  int wake_fd_;
  WorkerPool pool_;
  uint64_t next_id_ = 1;
  size_t max_connections_ = 1;
  Clock::time_point paused_until_{};
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns_;
};

}  // namespace

Status RunHttpServer(const TransportOptions& options) {
  int port = 0;
  LITHIFY_ASSIGN_OR_RETURN(int listen_fd, Listen(options.host, options.port, &port));
  Fd listen_guard(listen_fd);
  Fd wake(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (wake.fd < 0) return Status::IOError("cannot create an eventfd: {}", std::strerror(errno));
  if (options.on_listening) options.on_listening(port);
  {
    Loop loop(options, listen_fd, wake.fd);
    loop.Run();
  }  // connections closed, workers joined (a running handler finishes first)
  return Status::OK();
}

}  // namespace lithify::server
