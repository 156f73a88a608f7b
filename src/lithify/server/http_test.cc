// The server's request reader and access rules without sockets (tests/web/hardening.test.mjs
// checks the same over real connections): bodies are counted as they arrive and refused at
// the limit without being held; Host / Origin / Sec-Fetch-Site / Content-Type decide.
#include "lithify/server/access.h"
#include "lithify/server/http.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace lithify::server {
namespace {

using State = RequestReader::State;

HttpLimits Small() {
  HttpLimits l;
  l.max_header_bytes = 512;
  l.max_body_bytes = 1000;
  return l;
}

// Feeds `bytes` one byte at a time (every boundary a read can fall on).
State FeedBytewise(RequestReader& r, std::string_view bytes) {
  State st = r.state();
  for (char c : bytes) {
    st = r.Feed(std::string_view(&c, 1));
    if (st == State::kError || st == State::kComplete) break;
  }
  return st;
}

TEST(RequestReader, ReadsHeadersAndAContentLengthBodyAcrossReads) {
  const std::string req =
      "POST /api/simulate?x=1&y=a%20b HTTP/1.1\r\nHost: localhost:8080\r\nContent-Type: application/json\r\n"
      "Content-Length: 9\r\n\r\n{\"days\":1}trailing";
  RequestReader r(Small());
  EXPECT_EQ(FeedBytewise(r, req), State::kComplete);
  EXPECT_EQ(r.request().method, "POST");
  EXPECT_EQ(r.request().path, "/api/simulate");
  EXPECT_EQ(r.request().query, "x=1&y=a%20b");
  EXPECT_EQ(*r.request().Header("host"), "localhost:8080");
  EXPECT_EQ(r.request().body, "{\"days\":1");  // exactly Content-Length bytes
  RequestReader whole(Small());
  EXPECT_EQ(whole.Feed(req), State::kComplete);
  EXPECT_EQ(whole.request().body, "{\"days\":1");
}

TEST(RequestReader, DecodesChunkedBodies) {
  RequestReader r(Small());
  EXPECT_EQ(FeedBytewise(r, "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                            "4\r\nabcd\r\n3;ext=1\r\nefg\r\n0\r\nX-Trailer: 1\r\n\r\n"),
            State::kComplete);
  EXPECT_EQ(r.request().body, "abcdefg");
  EXPECT_TRUE(r.request().has_body);
}

TEST(RequestReader, RefusesAContentLengthOverTheLimitBeforeItsBody) {
  RequestReader r(Small());
  EXPECT_EQ(r.Feed("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1001\r\n\r\n"), State::kError);
  EXPECT_EQ(r.error_status(), 413);
  EXPECT_TRUE(r.request().body.empty());
}

TEST(RequestReader, RefusesAChunkedBodyAtTheChunkThatCrossesTheLimit) {
  RequestReader r(Small());
  ASSERT_EQ(r.Feed("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"), State::kBody);
  ASSERT_EQ(r.Feed("3e8\r\n" + std::string(1000, 'x') + "\r\n"), State::kBody);  // exactly the limit
  // The next chunk's size alone takes it over: refused before any of its bytes are held.
  EXPECT_EQ(r.Feed("1\r\n"), State::kError);
  EXPECT_EQ(r.error_status(), 413);
  EXPECT_EQ(r.request().body.size(), 1000u);
  // A huge declared chunk never overflows the count.
  RequestReader huge(Small());
  EXPECT_EQ(huge.Feed("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n"),
            State::kError);
  EXPECT_EQ(huge.error_status(), 413);
  // 10 MB in small chunks: refused once past the limit, having held at most the limit.
  RequestReader many(Small());
  many.Feed("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n");
  State st = State::kBody;
  for (int i = 0; i < 100000 && st == State::kBody; ++i) st = many.Feed("64\r\n" + std::string(100, 'y') + "\r\n");
  EXPECT_EQ(st, State::kError);
  EXPECT_EQ(many.error_status(), 413);
  EXPECT_LE(many.request().body.size(), 1000u);
}

TEST(RequestReader, BoundsHeadersAndRefusesMalformedFraming) {
  RequestReader big(Small());
  EXPECT_EQ(big.Feed("GET / HTTP/1.1\r\nX-Pad: " + std::string(600, 'a')), State::kError);
  EXPECT_EQ(big.error_status(), 431);
  auto status_of = [](const std::string& req) {
    RequestReader r(Small());
    State st = r.Feed(req);
    return st == State::kError ? r.error_status() : 0;
  };
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"), 501);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\n folded: x\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET /a b HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET http://evil/ HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET / HTTP/2.0\r\n\r\n"), 505);
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"), 400);
  EXPECT_EQ(status_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n"), 400);
  EXPECT_EQ(status_of("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), 0);
}

TEST(RequestReader, AHeaderCheckRefusesBeforeTheBodyAndBeforeTheSizeLimit) {
  RequestReader r(Small());
  r.set_header_check([](const HttpRequest& req) -> std::optional<HttpResponse> {
    if (*req.Header("host") == "evil") return HttpResponse{403, "text/plain", "no", {}, false};
    return std::nullopt;
  });
  EXPECT_EQ(r.Feed("POST / HTTP/1.1\r\nHost: evil\r\nContent-Length: 99999\r\n\r\n"), State::kError);
  EXPECT_EQ(r.error_status(), 403);
  ASSERT_TRUE(r.refusal().has_value());
  EXPECT_EQ(r.refusal()->body, "no");
}

// Valid and corrupted requests cut at random places: the reader never crashes, never holds
// more than its limits, and a valid request reads the same however it is split.
TEST(RequestReader, RandomSplitsAndCorruptionsStayWithinTheLimits) {
  std::mt19937 rng(14);
  const std::string valid =
      "POST /api/simulate HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
      "a\r\n0123456789\r\n5;x=y\r\nabcde\r\n0\r\n\r\n";
  const std::string alphabet = "\r\n :;0123456789abcdefxzGET/HTTP/1.1\0";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string req = valid;
    const bool corrupt = iter % 2 == 1;
    if (corrupt) {
      for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) {
        size_t at = rng() % req.size();
        switch (rng() % 3) {
          case 0: req[at] = alphabet[rng() % alphabet.size()]; break;
          case 1: req.erase(at, 1 + rng() % 8); break;
          default: req.insert(at, std::string(1 + rng() % 2000, alphabet[rng() % alphabet.size()])); break;
        }
        if (req.empty()) req = "x";
      }
    }
    RequestReader r(Small());
    State st = State::kHeaders;
    for (size_t pos = 0; pos < req.size() && (st == State::kHeaders || st == State::kBody);) {
      size_t n = 1 + rng() % 40;
      st = r.Feed(std::string_view(req).substr(pos, n));
      pos += n;
    }
    EXPECT_LE(r.request().body.size(), Small().max_body_bytes);
    if (!corrupt) {
      ASSERT_EQ(st, State::kComplete) << iter;
      EXPECT_EQ(r.request().body, "0123456789abcde");
    } else if (st == State::kError) {
      EXPECT_TRUE(r.error_status() >= 400 && r.error_status() < 600) << r.error_status();
    }
  }
}

TEST(Query, DecodesAndRefusesBadEscapes) {
  auto q = ParseQuery("table=%2Ftmp%2Fa+b&limit=5&&flag");
  ASSERT_TRUE(q.has_value());
  ASSERT_EQ(q->size(), 3u);
  EXPECT_EQ((*q)[0], (std::pair<std::string, std::string>("table", "/tmp/a b")));
  EXPECT_EQ((*q)[2].first, "flag");
  EXPECT_FALSE(ParseQuery("a=%4").has_value());
  EXPECT_FALSE(ParseQuery("a=%zz").has_value());
  EXPECT_EQ(PercentDecode("a+b", false), "a+b");
}

HttpRequest Req(std::string method, std::vector<std::pair<std::string, std::string>> headers, bool body = false) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = "/api/simulate";
  r.headers = std::move(headers);
  r.has_body = body;
  return r;
}

int Status(const AccessPolicy& p, const HttpRequest& r) {
  std::optional<AccessRefusal> refused = CheckAccess(p, r);
  return refused ? refused->status : 200;
}

TEST(Access, LoopbackAcceptsOnlyLocalhostNamesWithTheBoundPort) {
  AccessPolicy p = MakeAccessPolicy("127.0.0.1", 8123);
  EXPECT_TRUE(p.loopback);
  for (const char* ok : {"localhost", "localhost:8123", "127.0.0.1", "127.0.0.1:8123", "[::1]", "[::1]:8123",
                         "LOCALHOST:8123"}) {
    EXPECT_EQ(Status(p, Req("GET", {{"host", ok}})), 200) << ok;
  }
  for (const char* bad : {"evil.example", "evil.example:8123", "localhost:8124", "127.0.0.1:80", "localhost.",
                          "127.0.0.2:8123", "[::1", "localhost:", "localhost:8123x", "0.0.0.0:8123", ""}) {
    EXPECT_EQ(Status(p, Req("GET", {{"host", bad}})), 403) << bad;
  }
  EXPECT_EQ(Status(p, Req("GET", {})), 400);
  EXPECT_EQ(Status(p, Req("GET", {{"host", "localhost"}, {"host", "evil"}})), 400);
  EXPECT_TRUE(MakeAccessPolicy("::1", 1).loopback);
  EXPECT_TRUE(MakeAccessPolicy("localhost", 1).loopback);
  EXPECT_TRUE(IsLoopbackBindHost("127.0.0.1") && IsLoopbackBindHost("[::1]") && IsLoopbackBindHost("localhost"));
}

TEST(Access, AnotherInterfaceAcceptsOnlyItsNamePlusAllowedHosts) {
  AccessPolicy p = MakeAccessPolicy("192.0.2.7", 9000, {"panel.lan"});
  EXPECT_FALSE(p.loopback);
  EXPECT_FALSE(IsLoopbackBindHost("192.0.2.7"));
  EXPECT_FALSE(IsLoopbackBindHost("0.0.0.0"));
  EXPECT_EQ(Status(p, Req("GET", {{"host", "192.0.2.7:9000"}})), 200);
  EXPECT_EQ(Status(p, Req("GET", {{"host", "panel.lan:9000"}})), 200);
  EXPECT_EQ(Status(p, Req("GET", {{"host", "localhost:9000"}})), 403);
  EXPECT_EQ(Status(p, Req("GET", {{"host", "evil.example:9000"}})), 403);
  // Every interface: the loopback names still work.
  AccessPolicy any = MakeAccessPolicy("0.0.0.0", 9000);
  EXPECT_FALSE(any.loopback);
  EXPECT_EQ(Status(any, Req("GET", {{"host", "127.0.0.1:9000"}})), 200);
  EXPECT_EQ(Status(any, Req("GET", {{"host", "evil.example:9000"}})), 403);
}

TEST(Access, CrossOriginStateChangingRequestsAreRefused) {
  AccessPolicy p = MakeAccessPolicy("127.0.0.1", 8123);
  const std::pair<std::string, std::string> host{"host", "127.0.0.1:8123"}, json{"content-type", "application/json"};
  EXPECT_EQ(Status(p, Req("POST", {host, json}, true)), 200);  // curl: no Origin
  EXPECT_EQ(Status(p, Req("POST", {host, json, {"origin", "http://127.0.0.1:8123"}}, true)), 200);
  EXPECT_EQ(Status(p, Req("POST", {host, json, {"origin", "http://localhost:8123"}, {"sec-fetch-site", "same-origin"}}, true)), 200);
  EXPECT_EQ(Status(p, Req("POST", {host, json, {"origin", "http://evil.example"}}, true)), 403);
  EXPECT_EQ(Status(p, Req("POST", {host, json, {"origin", "http://127.0.0.1:9999"}}, true)), 403);
  EXPECT_EQ(Status(p, Req("POST", {host, json, {"origin", "https://127.0.0.1:8123"}}, true)), 403);
  EXPECT_EQ(Status(p, Req("POST", {host, json, {"origin", "null"}}, true)), 403);
  EXPECT_EQ(Status(p, Req("PUT", {host, json, {"origin", "http://evil.example"}}, true)), 403);
  EXPECT_EQ(Status(p, Req("DELETE", {host, {"origin", "http://evil.example"}})), 403);
  EXPECT_EQ(Status(p, Req("POST", {host, json, {"sec-fetch-site", "cross-site"}}, true)), 403);
  // Reads are not refused for their Origin (a cross-origin page cannot read the answer).
  EXPECT_EQ(Status(p, Req("GET", {host, {"origin", "http://evil.example"}, {"sec-fetch-site", "cross-site"}})), 200);
}

TEST(Access, BodiesMustBeJson) {
  AccessPolicy p = MakeAccessPolicy("127.0.0.1", 8123);
  const std::pair<std::string, std::string> host{"host", "localhost:8123"};
  EXPECT_EQ(Status(p, Req("POST", {host, {"content-type", "application/json; charset=utf-8"}}, true)), 200);
  EXPECT_EQ(Status(p, Req("POST", {host, {"content-type", "Application/JSON"}}, true)), 200);
  for (const char* ct : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                         "application/jsonx", ""}) {
    EXPECT_EQ(Status(p, Req("POST", {host, {"content-type", ct}}, true)), 415) << ct;
  }
  EXPECT_EQ(Status(p, Req("POST", {host}, true)), 415);
  EXPECT_EQ(Status(p, Req("POST", {host})), 415);  // no body, still a POST
  EXPECT_EQ(Status(p, Req("GET", {host})), 200);
}

}  // namespace
}  // namespace lithify::server
