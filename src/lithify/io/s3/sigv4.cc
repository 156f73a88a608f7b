#include "lithify/io/s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <fmt/format.h>

namespace lithify::io::s3 {

namespace {

std::string Hex(const unsigned char* p, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out(2 * n, '\0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[p[i] >> 4];
    out[2 * i + 1] = kDigits[p[i] & 15];
  }
  return out;
}

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

}  // namespace

std::string Sha256Hex(ByteView data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(data.data(), data.size(), digest);
  return Hex(digest, sizeof digest);
}

std::string Md5Base64(ByteView data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  unsigned char b64[64];
  int n = EVP_EncodeBlock(b64, digest, static_cast<int>(len));
  return std::string(reinterpret_cast<char*>(b64), static_cast<size_t>(n));
}

std::string UriEncode(std::string_view s, bool keep_slash) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/');
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

void SignRequest(std::string_view method, std::string_view encoded_path,
                 const std::map<std::string, std::string>& query, std::string_view payload_sha256,
                 const Credentials& creds, std::string_view region, std::time_t now,
                 std::map<std::string, std::string>* headers) {
  std::tm tm{};
  gmtime_r(&now, &tm);
  char amz_date[32], day[16];
  std::strftime(amz_date, sizeof amz_date, "%Y%m%dT%H%M%SZ", &tm);
  std::strftime(day, sizeof day, "%Y%m%d", &tm);
  (*headers)["x-amz-date"] = amz_date;
  (*headers)["x-amz-content-sha256"] = std::string(payload_sha256);
  if (!creds.session_token.empty()) (*headers)["x-amz-security-token"] = creds.session_token;

  // std::map keeps both query keys and header names sorted, as the canonical form wants
  // (query keys are unreserved ASCII here, so encoding does not change their order).
  std::string canonical_query;
  for (const auto& [k, v] : query) {
    if (!canonical_query.empty()) canonical_query.push_back('&');
    canonical_query += UriEncode(k, false) + "=" + UriEncode(v, false);
  }
  std::string canonical_headers, signed_headers;
  for (const auto& [k, v] : *headers) {
    canonical_headers += k + ":" + v + "\n";
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers += k;
  }
  const std::string canonical_request =
      fmt::format("{}\n{}\n{}\n{}\n{}\n{}", method, encoded_path, canonical_query, canonical_headers,
                  signed_headers, payload_sha256);
  const std::string scope = fmt::format("{}/{}/s3/aws4_request", day, region);
  const std::string string_to_sign = fmt::format("AWS4-HMAC-SHA256\n{}\n{}\n{}", amz_date, scope,
                                                 Sha256Hex(AsBytes(canonical_request)));
  std::string key = Hmac("AWS4" + creds.secret_key, day);
  key = Hmac(key, region);
  key = Hmac(key, "s3");
  key = Hmac(key, "aws4_request");
  const std::string signature = Hex(reinterpret_cast<const unsigned char*>(Hmac(key, string_to_sign).data()), 32);
  (*headers)["authorization"] = fmt::format("AWS4-HMAC-SHA256 Credential={}/{}, SignedHeaders={}, Signature={}",
                                            creds.access_key, scope, signed_headers, signature);
}

}  // namespace lithify::io::s3
