// The S3 backend of io::FileSystem: paths are "s3://bucket/key" (s3a:// and s3n:// too).
//
// Requests are signed with SigV4 (sigv4.h) and sent with libcurl (http.h). What each
// FileSystem call costs in requests:
//   Head              HEAD object; on 404 one LIST (max-keys 1) to tell a "directory"
//   OpenForRead       HEAD; each ReadAt one ranged GET (If-Match the opened ETag, so a
//                     replaced object fails the read instead of mixing versions);
//                     ReadRanges coalesces and sends up to 8 GETs at once
//   ListRecursive     ListObjectsV2 pages of 1,000, continuation tokens
//   ListFrom / ListFilesPage   ListObjectsV2 with delimiter '/' and start-after
//   Create            one PUT at Close for objects below the part size; larger ones are a
//                     multipart upload: parts sent as they fill (up to 4 at once, in the
//                     background), completed at Close,
//                     aborted on Abort, destruction or failure (no partial object visible)
//   PutIfAbsent       PUT with If-None-Match: * (412/409 -> AlreadyExists)
//   Delete / DeleteMany   DELETE / DeleteObjects in batches of 1,000
// Every request has a timeout and is retried with jittered exponential backoff on
// connection errors, 5xx, SlowDown and RequestTimeout. A conditional PUT that meets an
// existing object (412) after an earlier copy of it may have been applied (our retry, or
// libcurl's own re-send on a reused connection that died without a reply, see http.h)
// reads the object back: the same bytes mean our write won and only its reply was lost.
//
// Before the first PutIfAbsent into a bucket the backend checks that the server honours
// If-None-Match (a conditional PUT of a probe object it just created must answer 412; the
// probe, ".lithify-probe-<random>" next to the target, is deleted again). A server that
// ignores the condition would let two writers commit the same table version, so commits
// are refused then unless LITHIFY_S3_UNSAFE_COMMITS=1.
//
// Object stores have no directories: a "directory" is a key prefix, Head reports one when
// keys exist below it, writing "a/b" when "a" is an object is allowed (S3's semantics).
//
// Thread-safety: every call may be made from many threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"
#include "lithify/io/s3/sigv4.h"

namespace lithify::io::s3 {

struct S3Options {
  // "http://127.0.0.1:8000" or "https://s3.eu-west-1.amazonaws.com"; empty: AWS's
  // endpoint of `region`.
  std::string endpoint;
  std::string region = "us-east-1";
  Credentials credentials;
  // Path-style URLs (endpoint/bucket/key, what RGW and most servers want) or
  // virtual-hosted (bucket.endpoint/key, AWS's default).
  bool path_style = false;
  // Multipart part size; objects smaller than this are written with one PUT. S3 requires
  // parts of at least 5 MiB (except the last).
  uint64_t part_size = 8 << 20;
  // Attempts per request (first try included).
  int max_attempts = 6;
  long request_timeout_ms = 300000;  // per request; a stall of 30 s fails sooner (http.h)
  // Allow commits on a server that does not honour If-None-Match (unsafe).
  bool unsafe_commits = false;
};

// Options from the environment and the AWS shared files, as the AWS tools read them:
//   credentials  AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, else the
//                profile (AWS_PROFILE, default "default") of AWS_SHARED_CREDENTIALS_FILE
//                (~/.aws/credentials), else of AWS_CONFIG_FILE (~/.aws/config)
//   region       AWS_REGION, AWS_DEFAULT_REGION, else the profile's `region` in the
//                config file, else us-east-1
//   endpoint     AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else the profile's `endpoint_url`
//   addressing   LITHIFY_S3_ADDRESSING=path|virtual; default path-style with a custom
//                endpoint, virtual-hosted on AWS
//   LITHIFY_S3_UNSAFE_COMMITS=1  commit even when the server ignores If-None-Match
// InvalidArgument naming the settings when no credentials are found or a value is bad.
Result<S3Options> S3OptionsFromEnvironment();

std::shared_ptr<FileSystem> NewS3FileSystem(S3Options options);

// The ETag S3 gives an object completed from parts with these ETags (each the quoted or bare
// hex MD5 of its part): the hex MD5 of the concatenated binary part MD5s, "-", the number of
// parts. Empty when a part ETag is not a hex MD5 (e.g. encrypted with SSE-KMS), so that
// nothing can be recognised by it. Used to settle a CompleteMultipartUpload whose reply was
// lost: the object now at the key is ours when its ETag and size are these.
std::string MultipartETag(const std::vector<std::string>& part_etags);

// Registers schemes s3, s3a and s3n with io::RegisterFileSystem. The FileSystem is made
// from S3OptionsFromEnvironment() on first use and shared. Idempotent.
void RegisterS3FileSystem();

}  // namespace lithify::io::s3
