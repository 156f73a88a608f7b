#include "lithify/io/azure/azure_filesystem.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <mutex>
#include <utility>

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/base/thread_pool.h"
#include "lithify/io/azure/shared_key.h"
#include "lithify/io/http/crypto.h"
#include "lithify/io/http/http.h"
#include "lithify/io/http/remote_file.h"
#include "lithify/io/http/retry.h"
#include "lithify/io/http/text.h"
#include "lithify/io/registry.h"
#include "lithify/io/uri.h"

namespace lithify::io::azure {

using http::HttpRequest;
using http::HttpResponse;
using http::XmlAll;
using http::XmlFirst;

namespace {

// A service version every Blob endpoint of today answers (and Azurite, which is started
// with --skipApiVersionCheck in the tests anyway).
constexpr char kApiVersion[] = "2021-08-06";
// List Blobs with `startFrom` (the first name to list, inclusive; it composes with `marker`):
// the service version that brought it (the Azure SDKs send it from this one).
constexpr char kStartFromApiVersion[] = "2026-02-06";

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// ---- Addressing ----

struct Location {
  std::string base;       // the path up to the key: "az://c/", "abfss://c@a.dfs.core.windows.net/"
  std::string account;    // named by the URI ("" for az://)
  std::string container;
  std::string key;        // no leading '/', trailing '/' removed
  std::string Uri(std::string_view k) const { return base + std::string(k); }
};

// Takes a path of any of the accepted spellings apart (see the header).
Result<Location> ParseLocation(std::string_view path) {
  LITHIFY_ASSIGN_OR_RETURN(UriParts parts, SplitUri(path));
  Location loc;
  std::string key = parts.key;
  const std::string& scheme = parts.scheme;
  if (scheme == "az") {
    loc.container = parts.authority;
    loc.base = "az://" + parts.authority + "/";
  } else if (scheme == "abfs" || scheme == "abfss" || scheme == "wasb" || scheme == "wasbs") {
    const size_t at = parts.authority.find('@');
    if (at == std::string::npos || at == 0 || at + 1 == parts.authority.size()) {
      return Status::InvalidArgument("'{}': expected {}://<container>@<account>.{}.core.windows.net/<path>", path,
                                     scheme, scheme.rfind("abfs", 0) == 0 ? "dfs" : "blob");
    }
    loc.container = parts.authority.substr(0, at);
    const std::string host = AsciiLower(parts.authority.substr(at + 1));
    loc.account = host.substr(0, host.find('.'));
    loc.base = scheme + "://" + parts.authority + "/";
  } else if (scheme == "https") {
    const std::string host = AsciiLower(parts.authority);
    if (!EndsWith(host, ".blob.core.windows.net") && !EndsWith(host, ".dfs.core.windows.net")) {
      return Status::InvalidArgument(
          "'{}': https:// locations are read as Azure Blob storage, whose hosts are "
          "<account>.blob.core.windows.net or <account>.dfs.core.windows.net",
          path);
    }
    loc.account = host.substr(0, host.find('.'));
    const size_t slash = key.find('/');
    loc.container = key.substr(0, slash);
    key = slash == std::string::npos ? std::string() : key.substr(slash + 1);
    if (loc.container.empty()) {
      return Status::InvalidArgument("'{}': expected https://{}/<container>/<path>", path, host);
    }
    loc.base = "https://" + parts.authority + "/" + loc.container + "/";
  } else {
    return Status::InvalidArgument("'{}': not an Azure Blob URI (az, abfs, abfss, wasb, wasbs, https)", path);
  }
  while (!key.empty() && key.back() == '/') key.pop_back();
  loc.key = std::move(key);
  return loc;
}

// The error code of a reply: the XML body's <Code>, else the x-ms-error-code header (a
// HEAD reply has no body, but carries the header).
std::string ErrorCode(const HttpResponse& r) {
  std::string code = XmlFirst(r.body, "Code");
  if (code.empty()) {
    auto it = r.headers.find("x-ms-error-code");
    if (it != r.headers.end()) code = it->second;
  }
  return code;
}

bool Retryable(const HttpResponse& r) {
  if (r.status >= 500 || r.status == 429) return true;
  const std::string code = ErrorCode(r);
  return code == "ServerBusy" || code == "OperationTimedOut" || code == "InternalError";
}

class AzureFileSystem;

// ---- Reading ----

class AzureFile final : public http::RemoteFile {
 public:
  AzureFile(AzureFileSystem* fs, std::string path, Location loc, uint64_t size, std::string etag)
      : RemoteFile(std::move(path), size), fs_(fs), loc_(std::move(loc)), etag_(std::move(etag)) {}

 protected:
  Status Fetch(uint64_t offset, size_t length, uint8_t* out) override;

 private:
  AzureFileSystem* fs_;
  Location loc_;
  std::string etag_;
};

// ---- Writing ----

// Put Blob, or Put Block + Put Block List once the content reaches a block.
class AzureOutputStream final : public http::PartedOutputStream {
 public:
  AzureOutputStream(AzureFileSystem* fs, std::string path, Location loc, uint64_t block_size)
      : PartedOutputStream(std::move(path), block_size, kBlocksInFlight),
        fs_(fs),
        loc_(std::move(loc)),
        stream_id_(http::Random64()) {}
  ~AzureOutputStream() override { Abort(); }

 protected:
  Status PutWhole(ByteView data) override;
  Status UploadPart(size_t number, ByteView data) override;
  Status CompleteParts(size_t count) override;
  // Nothing to do: uncommitted blocks are invisible and discarded by the service.

 private:
  // Block ids must have one length within a blob (also across writers): Base64 of
  // "<16 hex of this stream>-<8 digits>".
  std::string BlockId(size_t number) const {
    return http::Base64Encode(fmt::format("{:016x}-{:08d}", stream_id_, number));
  }

  static constexpr size_t kBlocksInFlight = 4;
  AzureFileSystem* fs_;
  Location loc_;
  uint64_t stream_id_;
};

class AzureFileSystem final : public FileSystem {
 public:
  explicit AzureFileSystem(AzureOptions options) : o_(std::move(options)) {}

  struct Call {
    std::string method = "GET";
    const Location* loc = nullptr;
    bool container_level = false;  // a request on the container (List Blobs), not a blob
    std::map<std::string, std::string> query;    // decoded; names as sent (signed in lower case)
    std::map<std::string, std::string> headers;  // names lower case
    ByteView body;
    const char* api_version = kApiVersion;  // x-ms-version
  };

  // Sends `call` with retries (io/http/retry.h; `*uncertain` as there).
  Result<HttpResponse> Send(const Call& call, bool* uncertain = nullptr) {
    return http::SendWithRetries(
        o_.max_attempts, [&] { return Build(call); }, Retryable, uncertain);
  }

  // The error for an unexpected reply: names the URI and Azure's code and message.
  static Status ErrorFor(std::string_view what, std::string_view uri, const HttpResponse& r) {
    std::string code = ErrorCode(r);
    std::string message = XmlFirst(r.body, "Message");
    // Azure appends "\nRequestId:...\nTime:..." to its messages.
    message = message.substr(0, message.find('\n'));
    if (code.empty()) code = fmt::format("HTTP {}", r.status);
    const std::string detail = message.empty() ? code : fmt::format("{}: {}", code, message);
    if (r.status == 404 && code == "ContainerNotFound") {
      return Status::NotFound("{}: the container does not exist (Azure {})", uri, detail);
    }
    if (r.status == 404) return Status::NotFound("{}: not found (Azure {})", uri, detail);
    if (r.status == 403) return Status::IOError("{} {}: access denied (Azure {})", what, uri, detail);
    return Status::IOError("{} {}: Azure answered {} ({})", what, uri, r.status, detail);
  }

  // ---- FileSystem ----

  Result<FileInfo> Head(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (!loc.key.empty()) {
      LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Properties(loc));
      if (r.status == 200) {
        FileInfo info;
        info.path = std::string(path);
        info.size = std::strtoull(r.headers["content-length"].c_str(), nullptr, 10);
        info.mtime_ms = http::ParseHttpDateMs(r.headers["last-modified"]);
        return info;
      }
      if (r.status != 404) return ErrorFor("HEAD", path, r);
    }
    // A "directory": some blob below it (a missing container fails the listing).
    LITHIFY_ASSIGN_OR_RETURN(ListPage page, List(loc, loc.key.empty() ? "" : loc.key + "/", "", "", 1));
    if (page.blobs.empty() && page.prefixes.empty()) {
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
    std::string marker;
    do {
      LITHIFY_ASSIGN_OR_RETURN(ListPage page, List(loc, prefix, "", marker, o_.list_page_size));
      for (auto& f : page.blobs) {
        if (f.path.empty() || f.path.back() == '/') continue;  // "directory" marker blobs
        f.path = loc.Uri(f.path);
        out.push_back(std::move(f));
      }
      marker = page.next_marker;
    } while (!marker.empty());
    SortByPath(&out);
    return out;
  }

  Result<std::vector<FileInfo>> ListFrom(std::string_view dir, std::string_view start_after) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(dir));
    const std::string prefix = loc.key.empty() ? "" : loc.key + "/";
    // The service starts at the name after `start_after` (a service that ignores startFrom
    // lists everything: the filter below keeps the result the same either way).
    std::string start_from;
    if (start_after.substr(0, loc.base.size()) == loc.base && start_after.size() > loc.base.size()) {
      start_from = std::string(start_after.substr(loc.base.size()));
    }
    std::vector<FileInfo> out;
    std::string marker;
    do {
      LITHIFY_ASSIGN_OR_RETURN(ListPage page, List(loc, prefix, "/", marker, o_.list_page_size, start_from));
      for (auto& f : page.blobs) {
        if (f.path.size() <= prefix.size()) continue;  // the marker blob of `dir` itself
        f.path = loc.Uri(f.path);
        if (std::string_view(f.path) > start_after) out.push_back(std::move(f));
      }
      for (const std::string& p : page.prefixes) {
        FileInfo d;
        d.path = loc.Uri(std::string_view(p).substr(0, p.size() - 1));
        d.is_dir = true;
        if (std::string_view(d.path) > start_after) out.push_back(std::move(d));
      }
      marker = page.next_marker;
    } while (!marker.empty());
    // A directory "a/" sorts after "a.b" in the service's order; paths compare without '/'.
    SortByPath(&out);
    return out;
  }

  // One Get Blob of the first kOpenPieceBytes, kept by the file: its reply tells the
  // size (Content-Range) and the ETag, so no Get Blob Properties is needed, and a blob of
  // up to 64 KiB (a commit, a small data file) costs this one request. Azure has no
  // suffix range, so a larger Parquet file's footer is a second GET. Only an empty blob
  // (no range to answer, 416) takes a HEAD.
  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (loc.key.empty()) return Status::InvalidArgument("{}: is a container, not a blob", path);
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Get(loc, 0, http::RemoteFile::kOpenPieceBytes, ""));
    if (r.status == 416) {
      LITHIFY_ASSIGN_OR_RETURN(r, Properties(loc));
    }
    if (r.status == 404 && ErrorCode(r) != "ContainerNotFound") {
      // Say when the name is a "directory" (blobs below it), which "not found" would hide.
      auto info = Head(path);
      if (info.ok() && info->is_dir) {
        return Status::NotFound("{}: is a directory (there are blobs below this name), not a blob", path);
      }
      return Status::NotFound("{}: not found", path);
    }
    uint64_t first = 0, size = 0;
    if (r.status == 200) {
      // A HEAD (after a 416) or a server that ignores the range: the size is the length.
      size = std::strtoull(r.headers["content-length"].c_str(), nullptr, 10);
      if (!r.body.empty() && r.body.size() != size) {
        return Status::IOError("{}: GET returned {} bytes of a {}-byte blob", path, r.body.size(), size);
      }
    } else if (r.status != 206) {
      return ErrorFor("GET", path, r);
    } else if (!http::ParseContentRange(r.headers["content-range"], &first, &size) || first != 0) {
      return Status::IOError("{}: GET of the first {} bytes answered Content-Range '{}'", path,
                             http::RemoteFile::kOpenPieceBytes, r.headers["content-range"]);
    }
    auto file = std::make_unique<AzureFile>(this, std::string(path), std::move(loc), size, r.headers["etag"]);
    file->Keep(0, std::move(r.body));
    return std::unique_ptr<RandomAccessFile>(std::move(file));
  }

  Result<std::unique_ptr<OutputStream>> Create(std::string_view path) override {
    if (!path.empty() && path.back() == '/') {
      return Status::InvalidArgument("{}: a file name cannot end with '/'", path);
    }
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (loc.key.empty()) return Status::InvalidArgument("{}: names a container, not a blob", path);
    return std::unique_ptr<OutputStream>(
        std::make_unique<AzureOutputStream>(this, std::string(path), std::move(loc), o_.block_size));
  }

  Status PutIfAbsent(std::string_view path, ByteView data) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (loc.key.empty() || path.back() == '/') return Status::InvalidArgument("{}: not a blob name", path);
    bool uncertain = false;
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, PutBlob(loc, data, /*if_absent=*/true, &uncertain));
    if (r.status == 201 || r.status == 200) return Status::OK();
    // 409 BlobAlreadyExists; 412 ConditionNotMet from some service versions.
    if ((r.status == 409 && ErrorCode(r) == "BlobAlreadyExists") || r.status == 412) {
      // When an earlier copy of this Put Blob may have been applied (our retry after a
      // lost reply, or libcurl's re-send), the conflict may be with our own write.
      if (uncertain && http::SameContent(this, path, data)) return Status::OK();
      return Status::AlreadyExists("{}: already exists", path);
    }
    return ErrorFor("PUT", path, r);
  }

  Status Delete(std::string_view path) override {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, Parse(path));
    if (loc.key.empty()) return Status::InvalidArgument("{}: names a container, not a blob", path);
    Call c;
    c.method = "DELETE";
    c.loc = &loc;
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Send(c));
    if (r.status == 202 || r.status == 200 || (r.status == 404 && ErrorCode(r) != "ContainerNotFound")) {
      return Status::OK();
    }
    return ErrorFor("DELETE", path, r);
  }

  // The Blob service deletes one blob per request (its batch API is a multipart body
  // that Azurite and the Data Lake endpoint do not all take): up to kDeleteThreads at once.
  Status DeleteMany(const std::vector<std::string>& paths) override {
    constexpr int kDeleteThreads = 8;
    std::vector<Status> statuses(paths.size());
    (void)ParallelFor(IoPool(), paths.size(), kDeleteThreads, [&](size_t i) {
      statuses[i] = Delete(paths[i]);
      return Status::OK();  // every path is attempted (the contract), errors kept by index
    });
    for (Status& st : statuses) {
      if (!st.ok()) return st;
    }
    return Status::OK();
  }

  // ---- used by the files and streams ----

  Result<HttpResponse> Get(const Location& loc, uint64_t offset, uint64_t length, const std::string& etag) {
    Call c;
    c.loc = &loc;
    c.headers["x-ms-range"] = fmt::format("bytes={}-{}", offset, offset + length - 1);
    if (!etag.empty()) c.headers["if-match"] = etag;
    return Send(c);
  }

  Result<HttpResponse> PutBlob(const Location& loc, ByteView data, bool if_absent, bool* uncertain = nullptr) {
    Call c;
    c.method = "PUT";
    c.loc = &loc;
    c.body = data;
    c.headers["x-ms-blob-type"] = "BlockBlob";
    c.headers["content-type"] = "application/octet-stream";
    if (if_absent) c.headers["if-none-match"] = "*";
    return Send(c, uncertain);
  }

 private:
  struct ListPage {
    std::vector<FileInfo> blobs;  // path = the blob name
    std::vector<std::string> prefixes;
    std::string next_marker;
  };

  // ParseLocation, plus the check that a URI's account is the one configured.
  Result<Location> Parse(std::string_view path) const {
    LITHIFY_ASSIGN_OR_RETURN(Location loc, ParseLocation(path));
    if (!loc.account.empty() && loc.account != AsciiLower(o_.account)) {
      return Status::InvalidArgument(
          "{}: names storage account '{}', but the credentials are for '{}' (AZURE_STORAGE_ACCOUNT / "
          "AZURE_STORAGE_CONNECTION_STRING)",
          path, loc.account, o_.account);
    }
    return loc;
  }

  static void SortByPath(std::vector<FileInfo>* files) {
    std::sort(files->begin(), files->end(), [](const FileInfo& a, const FileInfo& b) { return a.path < b.path; });
  }

  Result<HttpResponse> Properties(const Location& loc) {
    Call c;
    c.method = "HEAD";
    c.loc = &loc;
    return Send(c);
  }

  // `start_from` (optional): list from this name on (inclusive), see kStartFromApiVersion.
  Result<ListPage> List(const Location& loc, const std::string& prefix, const std::string& delimiter,
                        const std::string& marker, size_t max_results, const std::string& start_from = "") {
    Call c;
    c.loc = &loc;
    c.container_level = true;
    c.query["restype"] = "container";
    c.query["comp"] = "list";
    c.query["maxresults"] = std::to_string(max_results);
    if (!prefix.empty()) c.query["prefix"] = prefix;
    if (!delimiter.empty()) c.query["delimiter"] = delimiter;
    if (!marker.empty()) c.query["marker"] = marker;
    if (!start_from.empty()) {
      c.query["startFrom"] = start_from;
      c.api_version = kStartFromApiVersion;
    }
    LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, Send(c));
    if (r.status != 200) return ErrorFor("LIST", loc.Uri(prefix), r);
    ListPage page;
    for (std::string_view blob : XmlAll(r.body, "Blob")) {
      // A storage account with a hierarchical namespace lists its directories as blobs.
      if (XmlFirst(blob, "ResourceType") == "directory") continue;
      FileInfo f;
      f.path = XmlFirst(blob, "Name");
      f.size = std::strtoull(XmlFirst(blob, "Content-Length").c_str(), nullptr, 10);
      f.mtime_ms = http::ParseHttpDateMs(XmlFirst(blob, "Last-Modified"));
      page.blobs.push_back(std::move(f));
    }
    for (std::string_view p : XmlAll(r.body, "BlobPrefix")) page.prefixes.push_back(XmlFirst(p, "Name"));
    page.next_marker = XmlFirst(r.body, "NextMarker");
    return page;
  }

  HttpRequest Build(const Call& call) const {
    const size_t scheme_end = o_.blob_endpoint.find("://") + 3;
    const size_t path_start = o_.blob_endpoint.find('/', scheme_end);
    // The endpoint's own path: the account, on an emulator's path-style endpoint.
    const std::string endpoint_path = path_start == std::string::npos ? "" : o_.blob_endpoint.substr(path_start);
    std::string path = endpoint_path + "/" + http::UriEncode(call.loc->container, false);
    if (!call.container_level) path += "/" + http::UriEncode(call.loc->key, true);
    HttpRequest req;
    req.method = call.method;
    req.headers = call.headers;
    req.headers["x-ms-date"] = http::HttpDate(std::time(nullptr));
    req.headers["x-ms-version"] = call.api_version;
    req.body = call.body;
    req.timeout_ms = o_.request_timeout_ms;
    std::string query;
    for (const auto& [k, v] : call.query) {
      query += query.empty() ? "?" : "&";
      query += http::UriEncode(k, false) + "=" + http::UriEncode(v, false);
    }
    if (!o_.key.empty()) {
      std::map<std::string, std::string> signed_query;  // SharedKey signs names in lower case
      for (const auto& [k, v] : call.query) {
        std::string name = k;
        for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        signed_query[name] = v;
      }
      SignSharedKey(call.method, o_.account, o_.key, path, signed_query, call.body.size(), &req.headers);
    } else if (!o_.sas_token.empty()) {
      query += (query.empty() ? "?" : "&") + o_.sas_token;
    }
    req.url = o_.blob_endpoint.substr(0, path_start == std::string::npos ? std::string::npos : path_start) + path +
              query;
    return req;
  }

  AzureOptions o_;
};

// ---- AzureFile ----

Status AzureFile::Fetch(uint64_t offset, size_t length, uint8_t* out) {
  LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Get(loc_, offset, length, etag_));
  if (r.status == 412) {
    return Status::IOError("{}: the blob changed since it was opened (its ETag no longer matches)", path());
  }
  if (r.status != 206 && r.status != 200) return AzureFileSystem::ErrorFor("GET", path(), r);
  return CopyRangeReply(r, offset, length, out);
}

// ---- AzureOutputStream ----

Status AzureOutputStream::PutWhole(ByteView data) {
  LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->PutBlob(loc_, data, /*if_absent=*/false));
  if (r.status != 201 && r.status != 200) return AzureFileSystem::ErrorFor("PUT", path(), r);
  return Status::OK();
}

Status AzureOutputStream::UploadPart(size_t number, ByteView data) {
  AzureFileSystem::Call c;
  c.method = "PUT";
  c.loc = &loc_;
  c.query["comp"] = "block";
  c.query["blockid"] = BlockId(number);
  c.body = data;
  LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Send(c));
  if (r.status != 201 && r.status != 200) return AzureFileSystem::ErrorFor("Put Block", path(), r);
  return Status::OK();
}

Status AzureOutputStream::CompleteParts(size_t count) {
  std::string xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>";
  for (size_t i = 1; i <= count; ++i) xml += "<Latest>" + BlockId(i) + "</Latest>";
  xml += "</BlockList>";
  AzureFileSystem::Call c;
  c.method = "PUT";
  c.loc = &loc_;
  c.query["comp"] = "blocklist";
  c.body = AsBytes(xml);
  c.headers["content-type"] = "application/xml";
  c.headers["x-ms-blob-content-type"] = "application/octet-stream";
  LITHIFY_ASSIGN_OR_RETURN(HttpResponse r, fs_->Send(c));
  if (r.status != 201 && r.status != 200) return AzureFileSystem::ErrorFor("Put Block List", path(), r);
  return Status::OK();
}

}  // namespace

std::shared_ptr<FileSystem> NewAzureFileSystem(AzureOptions options) {
  return std::make_shared<AzureFileSystem>(std::move(options));
}

void RegisterAzureFileSystem() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto factory = [](std::string_view uri) -> Result<std::shared_ptr<FileSystem>> {
      LITHIFY_ASSIGN_OR_RETURN(Location loc, ParseLocation(uri));
      static std::mutex mu;
      static std::map<std::string, std::shared_ptr<FileSystem>> by_account;  // "" for az://
      std::lock_guard<std::mutex> lock(mu);
      auto it = by_account.find(loc.account);
      if (it != by_account.end()) return it->second;
      auto options = AzureOptionsFromEnvironment(loc.account);
      if (!options.ok()) return options.status().WithContextF("{}", uri);
      auto fs = NewAzureFileSystem(std::move(*options));
      by_account.emplace(loc.account, fs);
      return fs;
    };
    for (const char* scheme : {"az", "abfs", "abfss", "wasb", "wasbs", "https"}) RegisterFileSystem(scheme, factory);
  });
}

}  // namespace lithify::io::azure
