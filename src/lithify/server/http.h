// The `lithify serve` transport: an HTTP/1.1 request reader with limits, and a poll()-based
// server loop with deadlines that hands complete requests to a small worker pool.
//
// Why not cpp-httplib (Debian 12 ships 0.11.4), measured here with the settings this server
// used (10 s read timeout, 64 KiB payload limit): its read timeout is per recv(), so a client
// dripping a header byte every second was still connected after 25 s; each connection holds
// one of its 8 worker threads from accept until it closes, so with 100 clients that had sent
// half their headers a normal request got no answer within 30 s; and the payload limit does
// not apply to a chunked body -- a 200 MB chunked POST was read whole (peak RSS 266 MB) and
// handed to the handler. None of that is configurable in 0.11.4, so the server reads
// requests itself:
//   - one thread polls every connection that is still sending its request or receiving
//     its answer; a stalled client costs a file descriptor and a few KiB, never a thread;
//   - each request has a deadline for its headers (from accept, however the bytes are
//     dripped) and one for its body (from the end of the headers); past it: 408, closed;
//   - headers are bounded (431), a body is counted as it arrives -- Content-Length is
//     refused up front, chunked as soon as a chunk size takes it past the limit (413) --
//     and never buffered beyond the limit; the rest of a refused upload is read and
//     discarded (bounded in time) so the client sees the answer instead of a reset;
//   - connections are bounded: at the bound, the connection that has been sending its
//     request for longest is closed to make room, so stalled clients cannot lock out a
//     new one;
//   - only complete requests reach the workers, which run the handler and never touch a
//     socket; answers are written by the poll thread under a write deadline.
// Every answer closes its connection (Connection: close): the panel makes a few requests
// at a time on localhost, and one request per connection keeps the state machine small.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/base/status.h"

namespace lithify::server {

struct HttpRequest {
  std::string method;   // "GET"
  std::string target;   // "/api/files?table=..."
  std::string path;     // "/api/files" (percent-decoded)
  std::string query;    // "table=..." (raw, without '?')
  std::string version;  // "HTTP/1.1"
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, in order
  std::string body;     // de-chunked
  bool has_body = false;  // Content-Length > 0 or chunked

  // The value of a header; nullptr when absent. `count` says how many times it appears.
  const std::string* Header(std::string_view lower_name) const;
  size_t HeaderCount(std::string_view lower_name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  bool head_only = false;  // answer to HEAD: headers (with the body's length) only
};

// "OK", "Not Found", ...: the reason phrase for a status line.
std::string_view ReasonPhrase(int status);

// The bytes of a response on the wire (always with Content-Length and Connection: close).
std::string SerializeResponse(const HttpResponse& res);

// Percent-decoding; '+' is a space when `plus_is_space` (query strings). nullopt when an
// escape is malformed ("%4", "%zz").
std::optional<std::string> PercentDecode(std::string_view s, bool plus_is_space);

// "a=1&b=x%20y" -> {("a","1"), ("b","x y")}; nullopt on a malformed escape.
std::optional<std::vector<std::pair<std::string, std::string>>> ParseQuery(std::string_view query);

struct HttpLimits {
  size_t max_header_bytes = 16 * 1024;  // request line + headers (431 beyond)
  size_t max_body_bytes = 64 * 1024;    // decoded body (413 beyond)
};

// Reads one request from bytes as they arrive. Feed() consumes what it is given (bytes
// after a complete request are ignored: one request per connection) and never holds more
// than max_header_bytes of headers plus max_body_bytes of body.
class RequestReader {
 public:
  enum class State {
    kHeaders,   // waiting for the end of the headers
    kBody,      // headers complete (request() has them), waiting for the body
    kComplete,  // request() is complete
    kError,     // error_status()/error_message() say why; the request is refused
  };

  explicit RequestReader(HttpLimits limits) : limits_(limits) {}

  State Feed(std::string_view data);
  State state() const { return state_; }
  const HttpRequest& request() const { return req_; }
  HttpRequest& request() { return req_; }
  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }
  // True once after the headers when the client waits for "100 Continue" before its body.
  bool TakeContinue() { return std::exchange(wants_continue_, false); }
  // Refuses the request from outside (a deadline): state becomes kError.
  void Refuse(int status, std::string message);
  // Run once the headers are parsed, before the body is read: a response refuses the
  // request (state kError, refusal() holds the response).
  void set_header_check(std::function<std::optional<HttpResponse>(const HttpRequest&)> check) {
    header_check_ = std::move(check);
  }
  const std::optional<HttpResponse>& refusal() const { return refusal_; }

 private:
  enum class Chunk { kSize, kData, kDataEnd, kTrailer };
  void ParseHeaders(std::string_view head);
  void FeedBody(std::string_view& data);
  void FeedChunked(std::string_view& data);
  // Takes one CRLF-terminated line from `data` into line_ (bounded); true when complete.
  bool TakeLine(std::string_view& data, size_t max_len, std::string& line);

  HttpLimits limits_;
  State state_ = State::kHeaders;
  HttpRequest req_;
  std::string head_;  // header bytes so far
  bool chunked_ = false;
  uint64_t remaining_ = 0;  // Content-Length left, or the current chunk's bytes left
  Chunk chunk_state_ = Chunk::kSize;
  std::string line_;          // a chunk-size or trailer line being assembled
  size_t trailer_bytes_ = 0;
  bool wants_continue_ = false;
  std::function<std::optional<HttpResponse>(const HttpRequest&)> header_check_;
  std::optional<HttpResponse> refusal_;
  int error_status_ = 0;
  std::string error_message_;
};

struct TransportOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0 = any free port
  HttpLimits limits;
  std::chrono::milliseconds header_timeout{10'000};  // accept -> end of headers
  std::chrono::milliseconds body_timeout{10'000};    // end of headers -> end of body
  std::chrono::milliseconds write_timeout{10'000};   // answer ready -> fully written
  std::chrono::milliseconds linger_timeout{2'000};   // reading and discarding after a refusal
  size_t max_connections = 512;  // open connections (all states)
  int workers = 0;               // handler threads; 0 = hardware threads clamped to [2, 8]
  // Called on the poll thread once the headers are complete; a response refuses the
  // request before its body is read (access rules, 415). Must be fast and not block.
  std::function<std::optional<HttpResponse>(const HttpRequest&)> check_headers;
  // Called on a worker thread with a complete request.
  std::function<HttpResponse(const HttpRequest&)> handle;
  // Turns a refusal of the transport (400, 408, 413, 431, 503...) into a response.
  std::function<HttpResponse(int status, const std::string& message)> error_response;
  // Called once the socket listens, with the bound port and address.
  std::function<void(int port)> on_listening;
  // RunHttpServer returns once this returns true (polled at least every 100 ms).
  std::function<bool()> should_stop;
};

// Binds options.host:options.port, serves until should_stop(), then closes every
// connection and joins the workers. IOError naming the address when it cannot bind.
Status RunHttpServer(const TransportOptions& options);

}  // namespace lithify::server
