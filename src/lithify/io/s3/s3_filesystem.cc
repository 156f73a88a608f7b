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
#include <utility>

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/io/registry.h"
#include "lithify/io/http/http.h"
#include "lithify/io/http/remote_file.h"
#include "lithify/io/http/retry.h"
#include "lithify/io/http/text.h"
#include "lithify/io/uri.h"

namespace lithify::io::s3 {

using http::HttpRequest;
using http::HttpResponse;
using http::ParseHttpDateMs;
using http::ParseIso8601Ms;
using http::XmlAll;
using http::XmlEncode;
using http::XmlFirst;

namespace {

// An ETag without the double quotes S3 puts around it.
std::string_view Unquoted(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') return etag.substr(1, etag.size() - 2);
  return etag;
}

constexpr char kUnsignedPayload[] = "UNSIGNED-PAYLOAD";

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

class S3File final : public http::RemoteFile {
 public:
  S3File(S3FileSystem* fs, std::string path, Location loc, uint64_t size, std::string etag)
      : RemoteFile(std::move(path), size), fs_(fs), loc_(std::move(loc)), etag_(std::move(etag)) {}

 protected:
  Status Fetch(uint64_t offset, size_t length, uint8_t* out) override;

 private:
  S3FileSystem* fs_;
  Location loc_;
  std::string etag_;
};

// ---- Writing ----

// A multipart upload once the content reaches a part (http::PartedOutputStream).
class S3OutputStream final : public http::PartedOutputStream {
 public:
  S3OutputStream(S3FileSystem* fs, std::string path, Location loc, uint64_t part_size)
      : PartedOutputStream(std::move(path), part_size, kPartsInFlight), fs_(fs), loc_(std::move(loc)) {}
  ~S3OutputStream() override { Abort(); }

 protected:
  Status PutWhole(ByteView data) override;
  Status BeginParts() override;
  Status UploadPart(size_t number, ByteView data) override;
  Status CompleteParts(size_t count) override;
  void AbortParts() override;

 private:
  // Whether the object now at the key is the one these parts complete (MultipartETag and
  // the size written), after a Complete whose first copy may have been applied.
  bool CompletedByUs(const std::vector<std::string>& etags);
  static constexpr size_t kPartsInFlight = 4;
  S3FileSystem* fs_;
  Location loc_;
  std::string upload_id_;
  std::mutex mu_;                 // guards etags_ (written by the part uploads)
  std::vector<std::string> etags_;  // by part number - 1
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
    const std::string payload_hash = call.sign_payload ? Sha256Hex(call.body) : kUnsignedPayload;
    return http::SendWithRetries(
        o_.max_attempts, [&] { return Build(call, payload_hash); }, Retryable, uncertain);
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

  // One GET of the last kOpenPieceBytes (a suffix range), kept by the file: its reply
  // tells the size (Content-Range) and the ETag, so no HEAD is needed, and a Parquet
  // footer or a small object costs no further request. Only an empty object (which has
  // no range to answer, 416) takes a HEAD.
  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (loc.key.empty()) return Status::InvalidArgument("{}: is a bucket, not an object", path);
    Call c;
    c.loc = &loc;
    c.key = loc.key;
    c.headers["range"] = fmt::format("bytes=-{}", http::RemoteFile::kOpenPieceBytes);
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Send(c));
    if (r.status == 404) return NotAnObject(path);
    if (r.status == 416) return OpenByHead(loc, path);
    uint64_t first = 0, size = 0;
    if (r.status == 200) {
      size = r.body.size();  // a server that ignores Range: the whole object
    } else if (r.status != 206) {
      return ErrorFor("GET", path, r);
    } else if (!http::ParseContentRange(r.headers["content-range"], &first, &size) ||
               first + r.body.size() != size) {
      return Status::IOError("{}: GET of the last {} bytes answered Content-Range '{}' with {} bytes", path,
                             http::RemoteFile::kOpenPieceBytes, r.headers["content-range"], r.body.size());
    }
    auto file = std::make_unique<S3File>(this, std::string(path), std::move(loc), size, r.headers["etag"]);
    file->Keep(first, std::move(r.body));
    return std::unique_ptr<RandomAccessFile>(std::move(file));
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
  bool SameContent(std::string_view path, ByteView data) { return http::SameContent(this, path, data); }

  // The error for reading a key that holds no object: NotFound, saying when the key is a
  // "directory" (objects exist below it), which a plain "not found" would hide.
  Status NotAnObject(std::string_view path) {
    auto info = Head(path);
    if (info.ok() && info->is_dir) {
      return Status::NotFound("{}: is a directory (there are objects below this key), not an object", path);
    }
    if (!info.ok() && !info.status().IsNotFound()) return info.status();
    return Status::NotFound("{}: not found", path);
  }

  // OpenForRead of an object a suffix range cannot read (an empty one).
  Result<std::unique_ptr<RandomAccessFile>> OpenByHead(Location loc, std::string_view path) {
    Call c;
    c.method = "HEAD";
    c.loc = &loc;
    c.key = loc.key;
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Send(c));
    if (r.status == 404) return NotAnObject(path);
    if (r.status != 200) return HeadError(loc, path, r);
    uint64_t size = std::strtoull(r.headers["content-length"].c_str(), nullptr, 10);
    return std::unique_ptr<RandomAccessFile>(
        std::make_unique<S3File>(this, std::string(path), std::move(loc), size, r.headers["etag"]));
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
    std::string probe = fmt::format("{}.lithify-probe-{:016x}", dir, http::Random64());
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

  S3Options o_;
  std::mutex mu_;
  std::set<std::string> honoured_;
};

// ---- S3File ----

Status S3File::Fetch(uint64_t offset, size_t length, uint8_t* out) {
  LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Get(loc_, offset, length, etag_));
  if (r.status == 412) {
    return Status::IOError("{}: the object changed since it was opened (its ETag no longer matches)", path());
  }
  if (r.status != 206 && r.status != 200) return S3FileSystem::ErrorFor("GET", path(), r);
  return CopyRangeReply(r, offset, length, out);
}

// ---- S3OutputStream ----

Status S3OutputStream::PutWhole(ByteView data) {
  S3FileSystem::Call c;
  c.method = "PUT";
  c.loc = &loc_;
  c.key = loc_.key;
  c.body = data;
  c.sign_payload = true;
  c.headers["content-type"] = "application/octet-stream";
  LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Send(c));
  if (r.status != 200) return S3FileSystem::ErrorFor("PUT", path(), r);
  return Status::OK();
}

Status S3OutputStream::BeginParts() {
  S3FileSystem::Call c;
  c.loc = &loc_;
  c.key = loc_.key;
  c.method = "POST";
  c.query["uploads"] = "";
  LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Send(c));
  if (r.status != 200) return S3FileSystem::ErrorFor("CreateMultipartUpload", path(), r);
  upload_id_ = XmlFirst(r.body, "UploadId");
  if (upload_id_.empty()) return Status::IOError("{}: CreateMultipartUpload returned no UploadId", path());
  return Status::OK();
}

Status S3OutputStream::UploadPart(size_t number, ByteView data) {
  S3FileSystem::Call c;
  c.loc = &loc_;
  c.key = loc_.key;
  c.method = "PUT";
  c.query["partNumber"] = std::to_string(number);
  c.query["uploadId"] = upload_id_;
  c.body = data;
  c.sign_payload = true;
  LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Send(c));
  if (r.status != 200) return S3FileSystem::ErrorFor("UploadPart", path(), r);
  std::lock_guard<std::mutex> lock(mu_);
  if (etags_.size() < number) etags_.resize(number);
  etags_[number - 1] = r.headers["etag"];
  return Status::OK();
}

Status S3OutputStream::CompleteParts(size_t count) {
  std::string xml = "<CompleteMultipartUpload>";
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < count; ++i) {
      xml += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", i + 1,
                         XmlEncode(i < etags_.size() ? etags_[i] : std::string()));
    }
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
  bool uncertain = false;
  LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Send(c, &uncertain));
  // When an earlier copy of the Complete may have been applied (our retry after a lost
  // reply, or libcurl's own re-send, http.h), the upload is gone and S3 answers
  // NoSuchUpload: the write succeeded if the object now there is the one our parts make.
  if (uncertain && r.status == 404 && XmlFirst(r.body, "Code") == "NoSuchUpload") {
    std::vector<std::string> etags;
    {
      std::lock_guard<std::mutex> lock(mu_);
      etags.assign(etags_.begin(), etags_.begin() + std::min(count, etags_.size()));
    }
    if (CompletedByUs(etags)) return Status::OK();
  }
  // CompleteMultipartUpload can fail inside a 200 reply.
  if (r.status != 200 || r.body.find("<Error>") != std::string::npos) {
    return S3FileSystem::ErrorFor("CompleteMultipartUpload", path(), r);
  }
  return Status::OK();
}

bool S3OutputStream::CompletedByUs(const std::vector<std::string>& etags) {
  const std::string want = MultipartETag(etags);
  if (want.empty()) return false;
  S3FileSystem::Call c;
  c.method = "HEAD";
  c.loc = &loc_;
  c.key = loc_.key;
  auto head = fs_->Send(c);
  if (!head.ok() || head->status != 200) return false;
  return Unquoted(head->headers["etag"]) == want && std::strtoull(head->headers["content-length"].c_str(), nullptr, 10) == position();
}

void S3OutputStream::AbortParts() {
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

std::string MultipartETag(const std::vector<std::string>& part_etags) {
  std::string md5s;
  for (std::string_view quoted : part_etags) {
    const std::string_view e = Unquoted(quoted);
    if (e.size() != 32) return {};
    for (size_t i = 0; i < 32; i += 2) {
      auto nibble = [](char ch) -> int {
        if (ch >= '0' && ch <= '9') return ch - '0';
        if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
        if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
        return -1;
      };
      const int hi = nibble(e[i]), lo = nibble(e[i + 1]);
      if (hi < 0 || lo < 0) return {};
      md5s.push_back(static_cast<char>(hi * 16 + lo));
    }
  }
  if (part_etags.empty()) return {};
  return fmt::format("{}-{}", http::Hex(http::Md5(md5s)), part_etags.size());
}

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
