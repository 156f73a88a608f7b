// Hashes, HMAC and Base64 for request signing (S3's SigV4, Azure's SharedKey) and the
// checksums object stores ask for: the digests on OpenSSL, Base64 encoding base's
// (base/base64.h), Base64 decoding OpenSSL's (see Base64Decode).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"

namespace lithify::io::http {

// Lower-case hex of bytes.
std::string Hex(std::string_view bytes);
// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(ByteView data);
// The raw 32-byte HMAC-SHA256 of `data` under `key`.
std::string HmacSha256(std::string_view key, std::string_view data);
// The raw 16-byte MD5 of `data` (S3's multipart ETag is the MD5 of the parts' MD5s).
std::string Md5(std::string_view data);
// Base64 of the MD5 of `data` (Content-MD5 headers).
std::string Md5Base64(ByteView data);
// Standard Base64 (with padding) of `bytes`.
std::string Base64Encode(std::string_view bytes);
// Decodes standard Base64 (padding required, whitespace not allowed). InvalidArgument
// (without echoing the text: it is often a secret) when malformed. OpenSSL's decoder,
// not base's stricter Base64Decode: it also takes a '=' inside the text (read as zero
// bits), more than two '=' at the end, and non-zero unused bits; kept so that an account
// key accepted before is accepted now.
Result<std::string> Base64Decode(std::string_view text);

}  // namespace lithify::io::http
