// Azure Storage's SharedKey authorization of Blob service requests, on OpenSSL's
// HMAC-SHA256 (the scheme of versions 2009-09-19 and later, with the Content-Length rule
// of 2015-02-21 and later: a zero length is signed as "").
//
// The string to sign is the method, the values of the standard headers Content-Encoding,
// Content-Language, Content-Length, Content-MD5, Content-Type, Date, If-Modified-Since,
// If-Match, If-None-Match, If-Unmodified-Since and Range (each followed by "\n", "" when
// absent), then the canonicalized headers (every x-ms-* header, lower case, sorted,
// "name:value\n") and the canonicalized resource ("/" account, the encoded URI path, then
// "\nname:value" for each query parameter, names lower case and sorted, values decoded).
// The signature is Base64(HMAC-SHA256(account key, string to sign)).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace lithify::io::azure {

// `encoded_path` is the request path as sent ("/container/a%20b"; with an emulator's
// path-style endpoint it starts with the account: "/devstoreaccount1/container/x").
// `query` holds the decoded parameters (names lower case), `headers` the request's headers
// (names lower case); `content_length` is the body's size.
std::string SharedKeyStringToSign(std::string_view method, std::string_view account, std::string_view encoded_path,
                                  const std::map<std::string, std::string>& query,
                                  const std::map<std::string, std::string>& headers, uint64_t content_length);

// Adds "authorization: SharedKey <account>:<signature>" to `headers`, which must hold
// x-ms-date (or date) and x-ms-version already. `key` is the decoded account key.
void SignSharedKey(std::string_view method, std::string_view account, std::string_view key,
                   std::string_view encoded_path, const std::map<std::string, std::string>& query,
                   uint64_t content_length, std::map<std::string, std::string>* headers);

}  // namespace lithify::io::azure
