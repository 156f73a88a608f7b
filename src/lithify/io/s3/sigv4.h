// AWS Signature Version 4 for S3 requests, on OpenSSL's SHA-256 and HMAC.
//
// Signs a request in the header form (Authorization + x-amz-date + x-amz-content-sha256):
// the canonical request is built from the method, the already-encoded path, the query
// parameters (encoded here), every header the caller passes (all of them are signed) and
// the payload hash. The caller sends exactly the headers returned.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <ctime>
#include <map>
#include <string>
#include <string_view>

#include "lithify/base/buffer.h"
#include "lithify/io/http/crypto.h"
#include "lithify/io/http/text.h"

namespace lithify::io::s3 {

struct Credentials {
  std::string access_key;
  std::string secret_key;
  std::string session_token;  // empty unless temporary credentials
};

// The hashing and encoding SigV4 uses are the shared ones (io/http): Sha256Hex, Md5Base64
// (the Content-MD5 header DeleteObjects requires) and S3's URI encoding.
using http::Md5Base64;
using http::Sha256Hex;
using http::UriEncode;

// Adds x-amz-date, x-amz-content-sha256, x-amz-security-token (with a session token) and
// Authorization to `headers` (keys lower case; "host" must be there already).
// `encoded_path` is the request path as sent ("/bucket/a%20b"); `query` is unencoded.
void SignRequest(std::string_view method, std::string_view encoded_path,
                 const std::map<std::string, std::string>& query, std::string_view payload_sha256,
                 const Credentials& creds, std::string_view region, std::time_t now,
                 std::map<std::string, std::string>* headers);

}  // namespace lithify::io::s3
