#include "lithify/io/azure/shared_key.h"

#include "lithify/io/http/crypto.h"

namespace lithify::io::azure {

namespace {

std::string Trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return std::string(v);
}

}  // namespace

std::string SharedKeyStringToSign(std::string_view method, std::string_view account, std::string_view encoded_path,
                                  const std::map<std::string, std::string>& query,
                                  const std::map<std::string, std::string>& headers, uint64_t content_length) {
  auto header = [&](const char* name) {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  };
  std::string s(method);
  s += "\n";
  for (const char* name : {"content-encoding", "content-language"}) s += header(name) + "\n";
  s += (content_length == 0 ? std::string() : std::to_string(content_length)) + "\n";
  for (const char* name : {"content-md5", "content-type", "date", "if-modified-since", "if-match", "if-none-match",
                           "if-unmodified-since", "range"}) {
    s += header(name) + "\n";
  }
  // std::map keeps the names sorted, as both canonical lists want.
  for (const auto& [name, value] : headers) {
    if (name.rfind("x-ms-", 0) == 0) s += name + ":" + Trim(value) + "\n";
  }
  s += "/";
  s += account;
  s += encoded_path;
  for (const auto& [name, value] : query) s += "\n" + name + ":" + value;
  return s;
}

void SignSharedKey(std::string_view method, std::string_view account, std::string_view key,
                   std::string_view encoded_path, const std::map<std::string, std::string>& query,
                   uint64_t content_length, std::map<std::string, std::string>* headers) {
  const std::string to_sign = SharedKeyStringToSign(method, account, encoded_path, query, *headers, content_length);
  (*headers)["authorization"] =
      "SharedKey " + std::string(account) + ":" + http::Base64Encode(http::HmacSha256(key, to_sign));
}

}  // namespace lithify::io::azure
