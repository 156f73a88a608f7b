// Host / Origin / Sec-Fetch-Site / Content-Type rules of `lithify serve`. See access.h.
#include "lithify/server/access.h"
#include "lithify/base/text.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>

#include <fmt/format.h>

namespace lithify::server {
namespace {

enum class Kind { kLoopback, kWildcard, kSpecific };

bool IsLoopback(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&a)) return true;
    return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127;
  }
  return false;
}

// "::1" / "[::1]" -> "[::1]"; "127.0.0.1" -> itself; names lower-cased; nullopt: not an address.
std::optional<std::string> AddressForm(std::string host, Kind* kind) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  in_addr v4{};
  in6_addr v6{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr = v4;
    *kind = v4.s_addr == INADDR_ANY ? Kind::kWildcard
            : IsLoopback(reinterpret_cast<sockaddr*>(&sa)) ? Kind::kLoopback : Kind::kSpecific;
    char buf[INET_ADDRSTRLEN];
    ::inet_ntop(AF_INET, &v4, buf, sizeof(buf));
    return std::string(buf);
  }
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    sockaddr_in6 sa{};
    sa.sin6_family = AF_INET6;
    sa.sin6_addr = v6;
    *kind = IN6_IS_ADDR_UNSPECIFIED(&v6) ? Kind::kWildcard
            : IsLoopback(reinterpret_cast<sockaddr*>(&sa)) ? Kind::kLoopback : Kind::kSpecific;
    char buf[INET6_ADDRSTRLEN];
    ::inet_ntop(AF_INET6, &v6, buf, sizeof(buf));
    return "[" + std::string(buf) + "]";
  }
  return std::nullopt;
}

// A name: loopback when every address it resolves to is (e.g. "localhost").
Kind ClassifyName(const std::string& name) {
  if (AsciiLower(name) == "localhost") return Kind::kLoopback;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(name.c_str(), nullptr, &hints, &res) != 0) return Kind::kSpecific;
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> guard(res, ::freeaddrinfo);
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    if (!IsLoopback(ai->ai_addr)) return Kind::kSpecific;
  }
  return Kind::kLoopback;
}

// This machine's host name and the addresses of its interfaces (for a wildcard bind).
std::vector<std::string> LocalNames() {
  std::vector<std::string> out;
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) == 0 && name[0]) out.push_back(AsciiLower(name));
  ifaddrs* ifs = nullptr;
  if (::getifaddrs(&ifs) != 0) return out;
  for (ifaddrs* i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6)) continue;
    char buf[INET6_ADDRSTRLEN] = {};
    const void* a = i->ifa_addr->sa_family == AF_INET
                        ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr)
                        : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr);
    if (!::inet_ntop(i->ifa_addr->sa_family, a, buf, sizeof(buf))) continue;
    out.push_back(i->ifa_addr->sa_family == AF_INET6 ? "[" + std::string(buf) + "]" : std::string(buf));
  }
  ::freeifaddrs(ifs);
  return out;
}

void AddUnique(std::vector<std::string>& v, std::string s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(std::move(s));
}

// Splits "name[:port]" / "[v6][:port]"; false when malformed. `port` is -1 when absent.
bool SplitHostPort(std::string_view hp, std::string* name, int* port) {
  std::string_view rest;
  if (!hp.empty() && hp.front() == '[') {
    size_t close = hp.find(']');
    if (close == std::string_view::npos) return false;
    *name = AsciiLower(std::string(hp.substr(0, close + 1)));
    rest = hp.substr(close + 1);
  } else {
    size_t colon = hp.find(':');
    *name = AsciiLower(std::string(hp.substr(0, colon)));
    rest = colon == std::string_view::npos ? std::string_view() : hp.substr(colon);
  }
  if (name->empty()) return false;
  *port = -1;
  if (rest.empty()) return true;
  if (rest.front() != ':' || rest.size() < 2 || rest.size() > 6) return false;
  rest.remove_prefix(1);
  int p = 0;
  auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), p);
  if (ec != std::errc() || ptr != rest.data() + rest.size() || p < 1 || p > 65535) return false;
  *port = p;
  return true;
}

std::string Clip(std::string_view s) {
  std::string out(s.substr(0, 80));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return s.size() > 80 ? out + "..." : out;
}

std::string Names(const AccessPolicy& p) {
  std::string out;
  for (const std::string& h : p.hosts) out += (out.empty() ? "" : ", ") + h;
  return out;
}

bool Accepts(const AccessPolicy& p, const std::string& name) {
  return std::find(p.hosts.begin(), p.hosts.end(), name) != p.hosts.end();
}

}  // namespace

bool IsLoopbackBindHost(const std::string& bind_host) {
  Kind kind = Kind::kSpecific;
  if (AddressForm(bind_host, &kind)) return kind == Kind::kLoopback;
  return ClassifyName(bind_host) == Kind::kLoopback;
}

AccessPolicy MakeAccessPolicy(const std::string& bind_host, int port, const std::vector<std::string>& extra_hosts) {
  AccessPolicy p;
  p.port = port;
  Kind kind = Kind::kSpecific;
  std::optional<std::string> addr = AddressForm(bind_host, &kind);
  if (!addr) kind = ClassifyName(bind_host);
  if (kind == Kind::kLoopback || kind == Kind::kWildcard) {
    for (const char* h : {"localhost", "127.0.0.1", "[::1]"}) AddUnique(p.hosts, h);
  }
  // The bound name itself; for a wildcard too, since the printed URL uses it (browsers
  // reach 0.0.0.0 as this machine). An address literal is no rebinding risk.
  AddUnique(p.hosts, addr ? *addr : AsciiLower(bind_host));
  if (kind == Kind::kWildcard) {
    for (std::string& n : LocalNames()) AddUnique(p.hosts, std::move(n));
  }
  for (const std::string& h : extra_hosts) {
    Kind k;
    std::optional<std::string> a = AddressForm(h, &k);
    AddUnique(p.hosts, a ? *a : AsciiLower(h));
  }
  p.loopback = kind == Kind::kLoopback;
  return p;
}

std::optional<AccessRefusal> CheckAccess(const AccessPolicy& policy, const HttpRequest& req) {
  // Host: the name the client (browser) used to reach this server.
  if (req.HeaderCount("host") != 1) {
    return AccessRefusal{400, req.HeaderCount("host") == 0 ? "the request has no Host header"
                                                           : "the request has more than one Host header"};
  }
  const std::string& host = *req.Header("host");
  std::string name;
  int port = -1;
  if (!SplitHostPort(host, &name, &port) || !Accepts(policy, name) || (port != -1 && port != policy.port)) {
    return AccessRefusal{403, fmt::format("Host '{}' is not this server: it answers to {} (port {}) only; a web page "
                                          "on another site may be trying to reach it (DNS rebinding). "
                                          "`lithify serve --allow-host NAME` accepts another name",
                                          Clip(host), Names(policy), policy.port)};
  }
  const bool safe = req.method == "GET" || req.method == "HEAD" || req.method == "OPTIONS";
  if (!safe) {
    // Cross-site requests that change state, or read through a POST: only the panel,
    // served from this server's own origin, may send them.
    if (const std::string* origin = req.Header("origin")) {
      std::string o = AsciiLower(*origin);
      std::string oname;
      int oport = -1;
      const bool own = o.rfind("http://", 0) == 0 && SplitHostPort(std::string_view(o).substr(7), &oname, &oport) &&
                       Accepts(policy, oname) && (oport == -1 ? policy.port == 80 : oport == policy.port);
      if (!own || req.HeaderCount("origin") != 1) {
        return AccessRefusal{403, fmt::format("cross-origin {} refused: Origin '{}' is not this server's", req.method,
                                              Clip(*origin))};
      }
    }
    if (const std::string* site = req.Header("sec-fetch-site"); site && AsciiLower(*site) == "cross-site") {
      return AccessRefusal{403, fmt::format("cross-site {} refused (Sec-Fetch-Site: cross-site)", req.method)};
    }
  }
  // GET and HEAD bodies are never read by a handler; every other body must be JSON.
  const bool sends_body = req.method == "POST" || req.method == "PUT" || req.method == "PATCH" ||
                          (!safe && req.has_body);
  if (sends_body) {
    const std::string* ct = req.Header("content-type");
    std::string media = ct ? AsciiLower(ct->substr(0, ct->find(';'))) : "";
    while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.pop_back();
    while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) media.erase(0, 1);
    if (media != "application/json") {
      return AccessRefusal{415, fmt::format("a {} body must be JSON (Content-Type: application/json), not '{}'",
                                            req.method, ct ? Clip(*ct) : "none given")};
    }
  }
  return std::nullopt;
}

}  // namespace lithify::server
