#include "lithify/io/s3/s3_filesystem.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <deque>
#include <future>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/io/registry.h"
#include "lithify/io/s3/http.h"
#include "lithify/io/uri.h"

namespace lithify::io::s3 {

namespace {

constexpr char kUnsignedPayload[] = "UNSIGNED-PAYLOAD";

// ---- Tiny XML reading: S3's replies are flat and well known ----

std::string XmlDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    size_t semi = s.find(';', i);
    if (semi == std::string_view::npos) {
      out.push_back(s[i]);
      continue;
    }
    std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp") out.push_back('&');
    else if (ent == "lt") out.push_back('<');
    else if (ent == "gt") out.push_back('>');
    else if (ent == "quot") out.push_back('"');
    else if (ent == "apos") out.push_back('\'');
    else if (!ent.empty() && ent[0] == '#') {
      unsigned long cp = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X')
                             ? std::strtoul(std::string(ent.substr(2)).c_str(), nullptr, 16)
                             : std::strtoul(std::string(ent.substr(1)).c_str(), nullptr, 10);
      if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
      } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
    } else {
      out.append(s.substr(i, semi - i + 1));
    }
    i = semi;
  }
  return out;
}

std::string XmlEncode(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("&#{};", static_cast<int>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

// The raw contents of every <tag>...</tag> in `xml` (not nested in themselves).
std::vector<std::string_view> XmlAll(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> out;
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != std::string_view::npos) {
    size_t start = pos + open.size();
    size_t end = xml.find(close, start);
    if (end == std::string_view::npos) break;
    out.push_back(xml.substr(start, end - start));
    pos = end + close.size();
  }
  return out;
}

std::string XmlFirst(std::string_view xml, std::string_view tag) {
  auto all = XmlAll(xml, tag);
  return all.empty() ? std::string() : XmlDecode(all.front());
}

// ---- Times ----

int64_t ParseIso8601Ms(const std::string& s) {  // 2026-12-02T01:01:20.002Z
  std::tm tm{};
  const char* rest = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest == nullptr) return 0;
  int64_t ms = static_cast<int64_t>(timegm(&tm)) * 1000;
  if (*rest == '.') ms += std::atoi(std::string(rest + 1, std::min<size_t>(3, std::strlen(rest + 1))).c_str());
  return ms;
}

int64_t ParseHttpDateMs(const std::string& s) {  // Wed, 02 Dec 2026 01:01:20 GMT
  std::tm tm{};
  if (strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S", &tm) == nullptr) return 0;
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

// ---- Addressing ----

struct Location {
  std::string scheme;  // as the caller spelled it, lower case ("s3", "s3a")
  std::string bucket;
  std::string key;  // no leading '/', trailing '/' removed
  std::string Uri(std::string_view k) const { return fmt::format("{}://{}/{}", scheme, bucket, k); }
};

Result<Location> Parse(std::string_view path) {
  LITHIFY_ASSIGN_OR_RETURN(UriParts parts, SplitUri(path));
  Location loc{parts.scheme, parts.authority, parts.key};
  while (!loc.key.empty() && loc.key.back() == '/') loc.key.pop_back();
  return loc;
}

bool Retryable(const HttpResponse& r) {
  if (r.status >= 500) return true;
  if (r.status == 429) return true;
  const std::string code = XmlFirst(r.body, "Code");
  return code == "SlowDown" || code == "RequestTimeout" || code == "InternalError";
}

class S3FileSystem;

// ---- Reading ----

class S3File final : public RandomAccessFile {
 public:
  S3File(S3FileSystem* fs, std::string path, Location loc, uint64_t size, std::string etag)
      : fs_(fs), path_(std::move(path)), loc_(std::move(loc)), size_(size), etag_(std::move(etag)) {}
  uint64_t size() const override { return size_; }
  const std::string& path() const override { return path_; }
  Status ReadAt(uint64_t offset, size_t length, uint8_t* out) override;
  Result<std::vector<Buffer>> ReadRanges(const std::vector<ReadRange>& ranges) override;
  ReadProfile read_profile() const override {
    ReadProfile p;
    p.coalesce_gap = 256 << 10;
    p.max_coalesced = 16 << 20;
    p.preferred_read = 64 << 10;
    p.remote = true;
    return p;
  }

 private:
  Status CheckRange(uint64_t offset, uint64_t length) const {
    if (offset > size_ || length > size_ - offset) {
      return Status::IOError("{}: read of {} bytes at offset {} is past the end ({} bytes)", path_, length,
                             offset, size_);
    }
    return Status::OK();
  }

  S3FileSystem* fs_;
  std::string path_;
  Location loc_;
  uint64_t size_;
  std::string etag_;
};

// ---- Writing ----

class S3OutputStream final : public OutputStream {
 public:
  S3OutputStream(S3FileSystem* fs, std::string path, Location loc, uint64_t part_size)
      : fs_(fs), path_(std::move(path)), loc_(std::move(loc)), part_size_(part_size) {}
  ~S3OutputStream() override { Abort(); }
  Status Append(ByteView data) override;
  Status Close() override;
  void Abort() override;
  uint64_t position() const override { return position_; }

 private:
  // Starts uploading the next part from the buffer (at most part_size_ bytes) in the
  // background; at most kPartsInFlight parts travel at once.
  Status UploadPart();
  // Waits for parts in flight until at most `max_left` remain; the first failure.
  Status WaitParts(size_t max_left);
  Status Fail(Status st) {
    Abort();
    return st;
  }

  static constexpr size_t kPartsInFlight = 4;
  S3FileSystem* fs_;
  std::string path_;
  Location loc_;
  uint64_t part_size_;
  std::string buffer_;
  uint64_t position_ = 0;
  std::string upload_id_;
  std::mutex mu_;                 // guards etags_ (written by the part uploads)
  std::vector<std::string> etags_;  // by part number - 1
  std::deque<std::future<Status>> in_flight_;
  bool closed_ = false, aborted_ = false;
};

class S3FileSystem final : public FileSystem, public std::enable_shared_from_this<S3FileSystem> {
 public:
  explicit S3FileSystem(S3Options options) : o_(std::move(options)) {}

  struct Call {
    std::string method = "GET";
    const Location* loc = nullptr;
    std::string key;  // object key ("" for bucket-level calls)
    std::map<std::string, std::string> query;
    std::map<std::string, std::string> headers;
    ByteView body;
    bool sign_payload = false;  // hash the body (else UNSIGNED-PAYLOAD)
  };

  // Sends `call` with retries. `*uncertain` (when given) is set when an attempt whose
  // reply was lost may have been applied by the server.
  Result<HttpResponse> Send(const Call& call, bool* uncertain = nullptr) {
    std::string payload_hash = call.sign_payload ? Sha256Hex(call.body) : kUnsignedPayload;
    Status last;
    for (int attempt = 0; attempt < o_.max_attempts; ++attempt) {
      if (attempt > 0) Backoff(attempt);
      HttpRequest req = Build(call, payload_hash);
      bool sent = false, maybe_resent = false;
      auto r = Perform(req, &sent, &maybe_resent);
      if (r.ok() && maybe_resent && uncertain != nullptr) *uncertain = true;
      if (!r.ok()) {
        if (sent && uncertain != nullptr) *uncertain = true;
        last = r.status();
        continue;
      }
      if (Retryable(*r) && attempt + 1 < o_.max_attempts) {
        if (uncertain != nullptr) *uncertain = true;
        continue;
      }
      return r;
    }
    return Status::IOError("{} (after {} attempts)", last.message(), o_.max_attempts);
  }

  // The error for an unexpected reply: names the URI and S3's code and message.
  static Status ErrorFor(std::string_view what, std::string_view uri, const HttpResponse& r) {
    std::string code = XmlFirst(r.body, "Code");
    std::string message = XmlFirst(r.body, "Message");
    if (code.empty()) code = fmt::format("HTTP {}", r.status);
    std::string detail = message.empty() ? code : fmt::format("{}: {}", code, message);
    if (r.status == 404 && code == "NoSuchBucket") {
      return Status::NotFound("{}: the bucket does not exist (S3 {})", uri, detail);
    }
    if (r.status == 404) return Status::NotFound("{}: not found (S3 {})", uri, detail);
    if (r.status == 403) return Status::IOError("{} {}: access denied (S3 {})", what, uri, detail);
    return Status::IOError("{} {}: S3 answered {} ({})", what, uri, r.status, detail);
  }

  // ---- FileSystem ----

  Result<FileInfo> Head(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (!loc.key.empty()) {
      Call c;
      c.method = "HEAD";
      c.loc = &loc;
      c.key = loc.key;
      LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Send(c));
      if (r.status == 200) {
        FileInfo info;
        info.path = std::string(path);
        info.size = std::strtoull(r.headers["content-length"].c_str(), nullptr, 10);
        info.mtime_ms = ParseHttpDateMs(r.headers["last-modified"]);
        return info;
      }
      if (r.status != 404) return HeadError(loc, path, r);
    }
    // A "directory": some key below it.
    LITHIFY_ASSIGN_OR_RETURN(ListPage page, List(loc, loc.key.empty() ? "" : loc.key + "/", "", "", "", 1));
    if (page.keys.empty() && page.prefixes.empty()) {
      if (loc.key.empty()) return FileInfo{std::string(path), 0, 0, true};
      return Status::NotFound("{}: not found", path);
    }
    FileInfo info;
    info.path = std::string(path);
    info.is_dir = true;
    return info;
  }

  Result<std::vector<FileInfo>> ListRecursive(std::string_view dir) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(dir));
    const std::string prefix = loc.key.empty() ? "" : loc.key + "/";
    std::vector<FileInfo> out;
    std::string token;
    do {
      LITHIFY_ASSIGN_OR_RETURN(ListPage page, List(loc, prefix, "", "", token, 1000));
      for (auto& f : page.keys) {
        if (f.path.empty() || f.path.back() == '/') continue;  // "directory" marker objects
        f.path = loc.Uri(f.path);
        out.push_back(std::move(f));
      }
      token = page.truncated ? page.next_token : "";
    } while (!token.empty());
    return out;
  }

  Result<std::vector<FileInfo>> ListFrom(std::string_view dir, std::string_view start_after) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(dir));
    const std::string prefix = loc.key.empty() ? "" : loc.key + "/";
    const std::string after = StartAfterKey(loc, start_after);
    std::vector<FileInfo> out;
    std::string token;
    do {
      LITHIFY_ASSIGN_OR_RETURN(ListPage page, List(loc, prefix, "/", token.empty() ? after : "", token, 1000));
      for (auto& f : page.keys) {
        if (f.path.size() <= prefix.size()) continue;  // the marker of `dir` itself
        f.path = loc.Uri(f.path);
        out.push_back(std::move(f));
      }
      for (const std::string& p : page.prefixes) {
        FileInfo d;
        d.path = loc.Uri(std::string_view(p).substr(0, p.size() - 1));
        d.is_dir = true;
        out.push_back(std::move(d));
      }
      token = page.truncated ? page.next_token : "";
    } while (!token.empty());
    // S3 orders "a/" (a directory) after "a.b"; paths are compared without the '/'.
    std::sort(out.begin(), out.end(), [](const FileInfo& a, const FileInfo& b) { return a.path < b.path; });
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](const FileInfo& f) { return std::string_view(f.path) <= start_after; }),
              out.end());
    return out;
  }

  Result<FilePage> ListFilesPage(std::string_view dir, std::string_view start_after, size_t page_size) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(dir));
    const std::string prefix = loc.key.empty() ? "" : loc.key + "/";
    const std::string after = StartAfterKey(loc, start_after);
    page_size = std::clamp<size_t>(page_size, 1, 1000);
    FilePage out;
    std::string token;
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(ListPage page, List(loc, prefix, "/", token.empty() ? after : "", token, page_size));
      for (auto& f : page.keys) {
        if (f.path.size() <= prefix.size()) continue;
        f.path = loc.Uri(f.path);
        if (std::string_view(f.path) <= start_after) continue;
        out.files.push_back(std::move(f));
      }
      out.more = page.truncated;
      // A page of only directories: go on, so that an empty page means the end.
      if (!out.files.empty() || !page.truncated) break;
      token = page.next_token;
    }
    return out;
  }

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (loc.key.empty()) return Status::InvalidArgument("{}: is a bucket, not an object", path);
    Call c;
    c.method = "HEAD";
    c.loc = &loc;
    c.key = loc.key;
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Send(c));
    if (r.status == 404) return Status::NotFound("{}: not found", path);
    if (r.status != 200) return HeadError(loc, path, r);
    uint64_t size = std::strtoull(r.headers["content-length"].c_str(), nullptr, 10);
    return std::unique_ptr<RandomAccessFile>(
        std::make_unique<S3File>(this, std::string(path), std::move(loc), size, r.headers["etag"]));
  }

  Result<std::unique_ptr<OutputStream>> Create(std::string_view path) override {
    if (!path.empty() && path.back() == '/') {
      return Status::InvalidArgument("{}: a file name cannot end with '/'", path);
    }
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (loc.key.empty()) return Status::InvalidArgument("{}: names a bucket, not an object", path);
    return std::unique_ptr<OutputStream>(
        std::make_unique<S3OutputStream>(this, std::string(path), std::move(loc), o_.part_size));
  }

  Status PutIfAbsent(std::string_view path, ByteView data) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (loc.key.empty() || path.back() == '/') return Status::InvalidArgument("{}: not an object key", path);
    LITHIFY_RETURN_NOT_OK(CheckConditionalPuts(loc, path));
    bool uncertain = false;
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, ConditionalPut(loc, loc.key, data, &uncertain));
    if (r.status == 200) return Status::OK();
    if (r.status == 412 || r.status == 409) {
      // When an earlier copy of this PUT may have been applied -- our retry, or libcurl's
      // own re-send on a reused connection that died without a reply (http.h) -- the 412
      // may answer our own write: ours if the bytes are ours (a commit's bytes name its own
      // files and time, so another writer's do not match).
      if (uncertain && SameContent(path, data)) return Status::OK();
      return Status::AlreadyExists("{}: already exists", path);
    }
    return ErrorFor("PUT", path, r);
  }

  Status Delete(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (loc.key.empty()) return Status::InvalidArgument("{}: names a bucket, not an object", path);
    Call c;
    c.method = "DELETE";
    c.loc = &loc;
    c.key = loc.key;
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Send(c));
    if (r.status == 204 || r.status == 200 || (r.status == 404 && XmlFirst(r.body, "Code") != "NoSuchBucket")) {
      return Status::OK();
    }
    return ErrorFor("DELETE", path, r);
  }

  Status DeleteMany(const std::vector<std::string>& paths) override {
    Status first;
    auto note = [&](Status st) {
      if (!st.ok() && first.ok()) first = std::move(st);
    };
    // Consecutive paths of one bucket go in one DeleteObjects call (<= 1,000 keys).
    size_t i = 0;
    while (i < paths.size()) {
      auto loc = Parse(paths[i]);
      if (!loc.ok() || loc->key.empty()) {
        note(loc.ok() ? Status::InvalidArgument("{}: names a bucket, not an object", paths[i]) : loc.status());
        ++i;
        continue;
      }
      std::vector<std::string> keys{loc->key};
      size_t j = i + 1;
      while (j < paths.size() && keys.size() < 1000) {
        auto next = Parse(paths[j]);
        if (!next.ok() || next->bucket != loc->bucket || next->key.empty()) break;
        keys.push_back(next->key);
        ++j;
      }
      note(DeleteBatch(*loc, keys));
      i = j;
    }
    return first;
  }

  // ---- used by the files and streams ----

  Result<HttpResponse> Get(const Location& loc, uint64_t offset, uint64_t length, const std::string& etag) {
    Call c;
    c.loc = &loc;
    c.key = loc.key;
    c.headers["range"] = fmt::format("bytes={}-{}", offset, offset + length - 1);
    if (!etag.empty()) c.headers["if-match"] = etag;
    return Send(c);
  }

  Result<HttpResponse> ConditionalPut(const Location& loc, const std::string& key, ByteView data, bool* uncertain) {
    Call c;
    c.method = "PUT";
    c.loc = &loc;
    c.key = key;
    c.body = data;
    c.sign_payload = true;
    c.headers["if-none-match"] = "*";
    c.headers["content-type"] = "application/octet-stream";
    return Send(c, uncertain);
  }

  const S3Options& options() const { return o_; }

  // Whether the object at `path` holds exactly `data`.
  bool SameContent(std::string_view path, ByteView data) {
    auto existing = ReadFile(path);
    return existing.ok() && existing->size() == data.size() &&
           std::equal(data.begin(), data.end(), existing->data());
  }

  // A HEAD reply has no body, so S3's error code and message are not in it: ask again
  // with a one-byte GET, whose reply carries them (only on the error path).
  Status HeadError(const Location& loc, std::string_view path, const HttpResponse& head) {
    Call c;
    c.loc = &loc;
    c.key = loc.key;
    c.headers["range"] = "bytes=0-0";
    auto r = Send(c);
    if (r.ok() && r->status == head.status && !r->body.empty()) return ErrorFor("HEAD", path, *r);
    return ErrorFor("HEAD", path, head);
  }

 private:
  struct ListPage {
    std::vector<FileInfo> keys;  // path = the key
    std::vector<std::string> prefixes;
    bool truncated = false;
    std::string next_token;
  };

  static std::string StartAfterKey(const Location& loc, std::string_view start_after) {
    const std::string base = loc.Uri("");
    if (start_after.substr(0, base.size()) == base) return std::string(start_after.substr(base.size()));
    return {};  // not under this bucket (""): filtered by path afterwards
  }

  Result<ListPage> List(const Location& loc, const std::string& prefix, const std::string& delimiter,
                        const std::string& start_after, const std::string& token, size_t max_keys) {
    Call c;
    c.loc = &loc;
    c.query["list-type"] = "2";
    c.query["max-keys"] = std::to_string(max_keys);
    if (!prefix.empty()) c.query["prefix"] = prefix;
    if (!delimiter.empty()) c.query["delimiter"] = delimiter;
    if (!start_after.empty()) c.query["start-after"] = start_after;
    if (!token.empty()) c.query["continuation-token"] = token;
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Send(c));
    if (r.status != 200) {
      const std::string uri = loc.Uri(prefix);
      if (r.status == 404) return ErrorFor("LIST", uri, r).WithContext("listing");
      return ErrorFor("LIST", uri, r);
    }
    ListPage page;
    for (std::string_view item : XmlAll(r.body, "Contents")) {
      FileInfo f;
      f.path = XmlFirst(item, "Key");
      f.size = std::strtoull(XmlFirst(item, "Size").c_str(), nullptr, 10);
      f.mtime_ms = ParseIso8601Ms(XmlFirst(item, "LastModified"));
      page.keys.push_back(std::move(f));
    }
    for (std::string_view item : XmlAll(r.body, "CommonPrefixes")) page.prefixes.push_back(XmlFirst(item, "Prefix"));
    page.truncated = XmlFirst(r.body, "IsTruncated") == "true";
    page.next_token = XmlFirst(r.body, "NextContinuationToken");
    if (page.truncated && page.next_token.empty()) {
      return Status::IOError("LIST {}: truncated reply without a continuation token", loc.Uri(prefix));
    }
    return page;
  }

  Status DeleteBatch(const Location& loc, const std::vector<std::string>& keys) {
    std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>true</Quiet>";
    for (const auto& k : keys) xml += "<Object><Key>" + XmlEncode(k) + "</Key></Object>";
    xml += "</Delete>";
    Call c;
    c.method = "POST";
    c.loc = &loc;
    c.query["delete"] = "";
    c.body = AsBytes(xml);
    c.sign_payload = true;
    c.headers["content-md5"] = Md5Base64(c.body);
    c.headers["content-type"] = "application/xml";
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Send(c));
    if (r.status != 200) return ErrorFor("DeleteObjects", loc.Uri(keys.front()), r);
    for (std::string_view err : XmlAll(r.body, "Error")) {
      std::string key = XmlFirst(err, "Key");
      std::string code = XmlFirst(err, "Code");
      if (code == "NoSuchKey") continue;
      return Status::IOError("DELETE {}: S3 {}: {}", loc.Uri(key), code, XmlFirst(err, "Message"));
    }
    return Status::OK();
  }

  // Verifies once per bucket that If-None-Match: * is honoured (see the header).
  Status CheckConditionalPuts(const Location& loc, std::string_view path) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (honoured_.count(loc.bucket) != 0) return Status::OK();
    }
    std::string dir = loc.key.substr(0, loc.key.rfind('/') == std::string::npos ? 0 : loc.key.rfind('/') + 1);
    std::string probe = fmt::format("{}.lithify-probe-{:016x}", dir, Random64());
    bool uncertain = false;
    // The probe's content is its unique name, so that a 412 echoing our own first write
    // (see PutIfAbsent) is recognised.
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse first, ConditionalPut(loc, probe, AsBytes(probe), &uncertain));
    if (first.status != 200 && !(uncertain && first.status == 412 && SameContent(loc.Uri(probe), AsBytes(probe)))) {
      return ErrorFor("PUT", loc.Uri(probe), first).WithContext("checking that the server honours If-None-Match");
    }
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse second, ConditionalPut(loc, probe, AsBytes(probe), &uncertain));
    Status cleanup = Delete(loc.Uri(probe));
    (void)cleanup;
    if (second.status != 412 && second.status != 409) {
      if (!o_.unsafe_commits) {
        return Status::NotSupported(
            "{}: the S3 server at {} ignores If-None-Match on PUT (a conditional PUT over an existing object "
            "answered {}), so concurrent commits could overwrite each other; refusing to commit (set "
            "LITHIFY_S3_UNSAFE_COMMITS=1 to commit anyway, with a single writer only)",
            path, Endpoint(loc), second.status);
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    honoured_.insert(loc.bucket);
    return Status::OK();
  }

  std::string Endpoint(const Location& loc) const {
    if (!o_.endpoint.empty()) return o_.endpoint;
    return fmt::format("https://s3.{}.amazonaws.com", o_.region);
  }

  HttpRequest Build(const Call& call, const std::string& payload_hash) const {
    std::string base = Endpoint(*call.loc);
    const size_t scheme_end = base.find("://") + 3;
    std::string host = base.substr(scheme_end);
    std::string path;
    const std::string encoded_key = UriEncode(call.key, true);
    // Buckets with dots cannot be virtual-hosted over TLS (the certificate's wildcard).
    if (o_.path_style || call.loc->bucket.find('.') != std::string::npos) {
      path = "/" + UriEncode(call.loc->bucket, false) + (call.key.empty() ? "" : "/" + encoded_key);
    } else {
      host = call.loc->bucket + "." + host;
      path = "/" + encoded_key;
    }
    HttpRequest req;
    req.method = call.method;
    req.headers = call.headers;
    req.headers["host"] = host;
    req.body = call.body;
    req.timeout_ms = o_.request_timeout_ms;
    SignRequest(call.method, path, call.query, payload_hash, o_.credentials, o_.region, std::time(nullptr),
                &req.headers);
    std::string query;
    for (const auto& [k, v] : call.query) {
      query += query.empty() ? "?" : "&";
      query += UriEncode(k, false) + "=" + UriEncode(v, false);
    }
    req.url = base.substr(0, scheme_end) + host + path + query;
    return req;
  }

  static uint64_t Random64() {
    thread_local std::mt19937_64 rng(std::random_device{}() ^
                                     static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
    return rng();
  }

  // 50 ms * 2^(attempt-1), capped at 2 s, scaled by a random factor in [0.5, 1).
  static void Backoff(int attempt) {
    double base = std::min(2000.0, 50.0 * (1 << std::min(attempt - 1, 10)));
    double factor = 0.5 + 0.5 * static_cast<double>(Random64() % 1000) / 1000.0;
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(base * factor)));
  }

  S3Options o_;
  std::mutex mu_;
  std::set<std::string> honoured_;
};

// ---- S3File ----

Status S3File::ReadAt(uint64_t offset, size_t length, uint8_t* out) {
  LITHIFY_RETURN_NOT_OK(CheckRange(offset, length));
  if (length == 0) return Status::OK();
  LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Get(loc_, offset, length, etag_));
  if (r.status == 412) {
    return Status::IOError("{}: the object changed since it was opened (its ETag no longer matches)", path_);
  }
  if (r.status != 206 && r.status != 200) return S3FileSystem::ErrorFor("GET", path_, r);
  // A 200 carries the whole object (a server that ignores Range).
  std::string_view body = r.body;
  if (r.status == 200) {
    if (body.size() < offset + length) {
      return Status::IOError("{}: GET returned {} bytes, fewer than the {} expected", path_, body.size(), offset + length);
    }
    body = body.substr(offset, length);
  }
  if (body.size() != length) {
    return Status::IOError("{}: ranged GET at {} returned {} bytes instead of {}", path_, offset, body.size(), length);
  }
  std::memcpy(out, body.data(), length);
  return Status::OK();
}

Result<std::vector<Buffer>> S3File::ReadRanges(const std::vector<ReadRange>& ranges) {
  for (const ReadRange& r : ranges) LITHIFY_RETURN_NOT_OK(CheckRange(r.offset, r.length));
  const ReadProfile profile = read_profile();
  std::vector<ReadRange> merged = CoalesceRanges(ranges, profile.coalesce_gap, profile.max_coalesced);
  std::vector<Buffer> out(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) out[i] = Buffer(ranges[i].length);
  // At most kInFlight GETs at once, each into its own buffer.
  constexpr size_t kInFlight = 8;
  std::vector<Buffer> bytes(merged.size());
  std::vector<Status> statuses(merged.size());
  for (size_t start = 0; start < merged.size(); start += kInFlight) {
    const size_t end = std::min(merged.size(), start + kInFlight);
    std::vector<std::thread> threads;
    for (size_t m = start; m < end; ++m) {
      auto work = [&, m] {
        bytes[m] = Buffer(merged[m].length);
        statuses[m] = ReadAt(merged[m].offset, merged[m].length, bytes[m].data());
      };
      if (end - start == 1) {
        work();
      } else {
        threads.emplace_back(work);
      }
    }
    for (auto& t : threads) t.join();
  }
  for (size_t m = 0; m < merged.size(); ++m) {
    LITHIFY_RETURN_NOT_OK(statuses[m]);
    CopyCoveredRanges(merged[m], bytes[m].view(), ranges, &out);
  }
  return out;
}

// ---- S3OutputStream ----

Status S3OutputStream::Append(ByteView data) {
  if (closed_ || aborted_) return Status::InvalidArgument("{}: write after {}", path_, closed_ ? "Close" : "Abort");
  buffer_.append(reinterpret_cast<const char*>(data.data()), data.size());
  position_ += data.size();
  while (buffer_.size() >= part_size_) LITHIFY_RETURN_NOT_OK(UploadPart());
  return Status::OK();
}

Status S3OutputStream::UploadPart() {
  if (upload_id_.empty()) {
    S3FileSystem::Call c;
    c.loc = &loc_;
    c.key = loc_.key;
    c.method = "POST";
    c.query["uploads"] = "";
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Send(c));
    if (r.status != 200) return Fail(S3FileSystem::ErrorFor("CreateMultipartUpload", path_, r));
    upload_id_ = XmlFirst(r.body, "UploadId");
    if (upload_id_.empty()) return Fail(Status::IOError("{}: CreateMultipartUpload returned no UploadId", path_));
  }
  Status waited = WaitParts(kPartsInFlight - 1);
  if (!waited.ok()) return Fail(waited);
  const size_t n = std::min<size_t>(buffer_.size(), part_size_);
  auto bytes = std::make_shared<std::string>(buffer_.substr(0, n));
  buffer_.erase(0, n);
  size_t number;
  {
    std::lock_guard<std::mutex> lock(mu_);
    etags_.emplace_back();
    number = etags_.size();
  }
  in_flight_.push_back(std::async(std::launch::async, [this, bytes, number]() -> Status {
    S3FileSystem::Call c;
    c.loc = &loc_;
    c.key = loc_.key;
    c.method = "PUT";
    c.query["partNumber"] = std::to_string(number);
    c.query["uploadId"] = upload_id_;
    c.body = AsBytes(*bytes);
    c.sign_payload = true;
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Send(c));
    if (r.status != 200) return S3FileSystem::ErrorFor("UploadPart", path_, r);
    std::lock_guard<std::mutex> lock(mu_);
    etags_[number - 1] = r.headers["etag"];
    return Status::OK();
  }));
  return Status::OK();
}

Status S3OutputStream::WaitParts(size_t max_left) {
  Status first;
  while (in_flight_.size() > max_left) {
    Status st = in_flight_.front().get();
    in_flight_.pop_front();
    if (!st.ok() && first.ok()) first = std::move(st);
  }
  return first;
}

Status S3OutputStream::Close() {
  if (closed_) return Status::OK();
  if (aborted_) return Status::InvalidArgument("{}: Close after Abort", path_);
  if (upload_id_.empty()) {
    S3FileSystem::Call c;
    c.method = "PUT";
    c.loc = &loc_;
    c.key = loc_.key;
    c.body = AsBytes(buffer_);
    c.sign_payload = true;
    c.headers["content-type"] = "application/octet-stream";
    auto r = fs_->Send(c);
    if (!r.ok()) return Fail(r.status());
    if (r->status != 200) return Fail(S3FileSystem::ErrorFor("PUT", path_, *r));
  } else {
    if (!buffer_.empty()) LITHIFY_RETURN_NOT_OK(UploadPart());
    Status parts = WaitParts(0);
    if (!parts.ok()) return Fail(parts);
    std::string xml = "<CompleteMultipartUpload>";
    for (size_t i = 0; i < etags_.size(); ++i) {
      xml += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1, XmlEncode(etags_[i]));
    }
    xml += "</CompleteMultipartUpload>";
    S3FileSystem::Call c;
    c.method = "POST";
    c.loc = &loc_;
    c.key = loc_.key;
    c.query["uploadId"] = upload_id_;
    c.body = AsBytes(xml);
    c.sign_payload = true;
    c.headers["content-type"] = "application/xml";
    auto r = fs_->Send(c);
    if (!r.ok()) return Fail(r.status());
    // CompleteMultipartUpload can fail inside a 200 reply.
    if (r->status != 200 || r->body.find("<Error>") != std::string::npos) {
      return Fail(S3FileSystem::ErrorFor("CompleteMultipartUpload", path_, *r));
    }
  }
  closed_ = true;
  buffer_.clear();
  buffer_.shrink_to_fit();
  return Status::OK();
}

void S3OutputStream::Abort() {
  if (closed_ || aborted_) return;
  aborted_ = true;
  buffer_.clear();
  buffer_.shrink_to_fit();
  (void)WaitParts(0);  // a part still travelling would otherwise outlive the abort
  if (upload_id_.empty()) return;
  S3FileSystem::Call c;
  c.method = "DELETE";
  c.loc = &loc_;
  c.key = loc_.key;
  c.query["uploadId"] = upload_id_;
  auto r = fs_->Send(c);  // best effort: a lifecycle rule cleans up what remains
  (void)r;
}

}  // namespace

std::shared_ptr<FileSystem> NewS3FileSystem(S3Options options) {
  return std::make_shared<S3FileSystem>(std::move(options));
}

void RegisterS3FileSystem() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto factory = [](std::string_view uri) -> Result<std::shared_ptr<FileSystem>> {
      LITHIFY_ASSIGN_OR_RETURN(UriParts parts, SplitUri(uri));
      static std::mutex mu;
      static std::shared_ptr<FileSystem> shared;
      std::lock_guard<std::mutex> lock(mu);
      if (!shared) {
        auto options = S3OptionsFromEnvironment();
        if (!options.ok()) return options.status().WithContextF("{}", uri);
        shared = NewS3FileSystem(std::move(*options));
      }
      return shared;
    };
    for (const char* scheme : {"s3", "s3a", "s3n"}) RegisterFileSystem(scheme, factory);
  });
}

}  // namespace lithify::io::s3
