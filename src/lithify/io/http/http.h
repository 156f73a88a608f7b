// One HTTP request over libcurl, with a connection kept per thread (shared by the object-store
// backends: io/s3, io/azure).
//
// Thread-safety: Perform may be called from any number of threads; each thread reuses its
// own curl handle (and so its keep-alive connection).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"

namespace lithify::io::http {

struct HttpRequest {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string url;
  std::map<std::string, std::string> headers;  // names lower case
  ByteView body;
  // The whole request, so that nothing ever hangs (a transfer that stalls for 30 s fails
  // sooner).
  long timeout_ms = 300000;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower case
  std::string body;
};

// Sends the request. An error Status only when no HTTP reply arrived (connection refused,
// reset, timeout): IOError naming the URL and curl's reason, marked by `*sent` whether
// the request may have reached the server (the reply was lost). On a reply, `*sent` is
// true and `*maybe_resent` tells whether libcurl may have sent the request twice: it
// re-sends by itself when a reused keep-alive connection dies without a reply, so the
// reply can answer a second copy of a request the server already applied.
Result<HttpResponse> Perform(const HttpRequest& request, bool* sent, bool* maybe_resent = nullptr);

// Requests sent by this process through Perform, by kind: every attempt counts (a retry
// is a request), whether or not a reply came. A GET that lists (S3 ListObjectsV2,
// "list-type=" in the query; Azure List Blobs, "comp=list") counts as a LIST, not a GET;
// POST (S3 DeleteObjects and multipart create/complete) counts on its own.
// Process-wide and atomic, so that tests and benchmarks can say what a command cost.
struct RequestCounts {
  int64_t get = 0, put = 0, head = 0, list = 0, del = 0, post = 0;
  int64_t total() const { return get + put + head + list + del + post; }
  // {"get":N,"put":N,"head":N,"list":N,"delete":N,"post":N,"total":N}
  std::string Json() const;
  RequestCounts operator-(const RequestCounts& o) const {
    return {get - o.get, put - o.put, head - o.head, list - o.list, del - o.del, post - o.post};
  }
};
RequestCounts CountedRequests();

}  // namespace lithify::io::http
