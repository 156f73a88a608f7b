#include "lithify/io/http/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

namespace lithify::io::http {

namespace {

struct ThreadHandle {
  ThreadHandle() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    curl = curl_easy_init();
  }
  ~ThreadHandle() {
    if (curl != nullptr) curl_easy_cleanup(curl);
  }
  CURL* curl = nullptr;
  bool used = false;  // a request went through this handle (so a connection may be kept)
};

size_t OnBody(char* p, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(p, size * n);
  return size * n;
}

size_t OnHeader(char* p, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string_view line(p, size * n);
  // A new status line (after "100 Continue") starts a new header block.
  if (line.substr(0, 5) == "HTTP/") headers->clear();
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
      value.remove_suffix(1);
    }
    (*headers)[name] = std::string(value);
  }
  return size * n;
}

// The counters of CountedRequests, by RequestCounts' members' order.
enum Kind { kGet, kPut, kHead, kList, kDelete, kPost, kKinds };
std::atomic<int64_t> g_requests[kKinds] = {};

Kind KindOf(const HttpRequest& r) {
  if (r.method == "GET") {
    const size_t q = r.url.find('?');
    if (q != std::string::npos) {
      std::string_view query = std::string_view(r.url).substr(q);
      if (query.find("list-type=") != std::string_view::npos || query.find("comp=list") != std::string_view::npos) {
        return kList;
      }
    }
    return kGet;
  }
  if (r.method == "PUT") return kPut;
  if (r.method == "HEAD") return kHead;
  if (r.method == "DELETE") return kDelete;
  return kPost;
}

}  // namespace

std::string RequestCounts::Json() const {
  return fmt::format("{{\"get\":{},\"put\":{},\"head\":{},\"list\":{},\"delete\":{},\"post\":{},\"total\":{}}}",
                     get, put, head, list, del, post, total());
}

RequestCounts CountedRequests() {
  auto at = [](Kind k) { return g_requests[k].load(std::memory_order_relaxed); };
  return {at(kGet), at(kPut), at(kHead), at(kList), at(kDelete), at(kPost)};
}

Result<HttpResponse> Perform(const HttpRequest& request, bool* sent, bool* maybe_resent) {
  thread_local ThreadHandle handle;
  CURL* curl = handle.curl;
  *sent = false;
  if (maybe_resent != nullptr) *maybe_resent = false;
  const bool had_connection = handle.used;
  handle.used = true;
  if (curl == nullptr) return Status::IOError("{}: curl_easy_init failed", request.url);
  curl_easy_reset(curl);
  HttpResponse response;
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, request.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, std::min(request.timeout_ms, 10000L));
  curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
  // A stalled transfer (no byte for 30 s) fails even when the overall timeout is far off.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 30L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (request.method == "PUT" || request.method == "POST") {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
      // Never NULL: curl would then read the body from a read callback.
      static const char kEmpty[] = "";
      const char* data = request.body.empty() ? kEmpty : reinterpret_cast<const char*>(request.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, data);
    }
  }
  curl_slist* list = nullptr;
  for (const auto& [k, v] : request.headers) {
    if (k == "host") continue;  // curl derives it from the URL (the signed value is the same)
    list = curl_slist_append(list, (k + ": " + v).c_str());
  }
  // No "Expect: 100-continue" round trip for large bodies; curl's default content type
  // for a body would be a form.
  list = curl_slist_append(list, "Expect:");
  if (request.headers.count("content-type") == 0) list = curl_slist_append(list, "Content-Type:");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  g_requests[KindOf(request)].fetch_add(1, std::memory_order_relaxed);
  CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(list);
  if (rc != CURLE_OK) {
    // Failures before anything was sent cannot have changed the server's state.
    *sent = !(rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
              rc == CURLE_COULDNT_RESOLVE_PROXY || rc == CURLE_URL_MALFORMAT);
    return Status::IOError("{} {}: {}", request.method, request.url, curl_easy_strerror(rc));
  }
  *sent = true;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  // A new connection although one was open: the old one was found dead -- possibly only
  // after the request went out on it, and libcurl then sent it again.
  long connects = 0;
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
  if (maybe_resent != nullptr) *maybe_resent = had_connection && connects > 0;
  return response;
}

}  // namespace lithify::io::http
