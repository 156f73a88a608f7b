#include "lithify/io/s3/sigv4.h"

#include <fmt/format.h>

namespace lithify::io::s3 {

namespace {

std::string Hmac(std::string_view key, std::string_view data) { return http::HmacSha256(key, data); }

}  // namespace

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
  const std::string signature = http::Hex(Hmac(key, string_to_sign));
  (*headers)["authorization"] = fmt::format("AWS4-HMAC-SHA256 Credential={}/{}, SignedHeaders={}, Signature={}",
                                            creds.access_key, scope, signed_headers, signature);
}

}  // namespace lithify::io::s3
