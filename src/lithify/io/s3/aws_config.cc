// S3OptionsFromEnvironment: the environment and the AWS shared credentials/config files.
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "lithify/io/s3/s3_filesystem.h"

namespace lithify::io::s3 {

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string Trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

using Ini = std::map<std::string, std::map<std::string, std::string>>;

// The sections of an INI file ("[name]" then "key = value" lines); empty when absent.
Ini ReadIni(const std::string& path) {
  Ini ini;
  std::ifstream in(path);
  std::string line, section;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = Trim(line.substr(1, line.size() - 2));
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    ini[section][Trim(line.substr(0, eq))] = Trim(line.substr(eq + 1));
  }
  return ini;
}

std::string HomeFile(const char* override_var, const char* rel) {
  std::string p = Env(override_var);
  if (!p.empty()) return p;
  std::string home = Env("HOME");
  return home.empty() ? std::string() : home + "/.aws/" + rel;
}

// The profile's section: "[name]" in credentials, "[profile name]" (or "[default]") in config.
const std::map<std::string, std::string>* Section(const Ini& ini, const std::string& profile, bool config) {
  auto it = ini.find(config && profile != "default" ? "profile " + profile : profile);
  return it == ini.end() ? nullptr : &it->second;
}

std::string Get(const std::map<std::string, std::string>* s, const char* key) {
  if (s == nullptr) return {};
  auto it = s->find(key);
  return it == s->end() ? std::string() : it->second;
}

}  // namespace

Result<S3Options> S3OptionsFromEnvironment() {
  S3Options o;
  std::string profile = Env("AWS_PROFILE");
  const bool named_profile = !profile.empty();
  if (profile.empty()) profile = "default";
  const std::string credentials_file = HomeFile("AWS_SHARED_CREDENTIALS_FILE", "credentials");
  const std::string config_file = HomeFile("AWS_CONFIG_FILE", "config");
  const Ini credentials_ini = ReadIni(credentials_file);
  const Ini config_ini = ReadIni(config_file);
  const auto* cred = Section(credentials_ini, profile, false);
  const auto* conf = Section(config_ini, profile, true);
  if (named_profile && cred == nullptr && conf == nullptr) {
    return Status::InvalidArgument("AWS_PROFILE={}: no such profile in {} or {}", profile, credentials_file,
                                   config_file);
  }

  o.credentials.access_key = Env("AWS_ACCESS_KEY_ID");
  o.credentials.secret_key = Env("AWS_SECRET_ACCESS_KEY");
  o.credentials.session_token = Env("AWS_SESSION_TOKEN");
  if (o.credentials.access_key.empty()) {
    for (const auto* s : {cred, conf}) {
      if (Get(s, "aws_access_key_id").empty()) continue;
      o.credentials.access_key = Get(s, "aws_access_key_id");
      o.credentials.secret_key = Get(s, "aws_secret_access_key");
      o.credentials.session_token = Get(s, "aws_session_token");
      break;
    }
  }
  if (o.credentials.access_key.empty() || o.credentials.secret_key.empty()) {
    return Status::InvalidArgument(
        "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile '{}' "
        "aws_access_key_id and aws_secret_access_key in {}",
        profile, credentials_file);
  }

  std::string region_from = "AWS_REGION";
  o.region = Env("AWS_REGION");
  if (o.region.empty()) {
    o.region = Env("AWS_DEFAULT_REGION");
    region_from = "AWS_DEFAULT_REGION";
  }
  if (o.region.empty()) {
    o.region = Get(conf, "region");
    region_from = "the region of profile '" + profile + "'";
  }
  if (o.region.empty()) o.region = "us-east-1";
  // A region becomes part of the host name and of the signature's scope: a malformed one
  // would otherwise reach the server as an opaque 400 or a DNS failure. A well-formed
  // unknown one is the server's to refuse (AWS: AuthorizationHeaderMalformed naming the
  // region it expects; the error passes its message on).
  if (o.region.size() > 64 ||
      o.region.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
    return Status::InvalidArgument("{} '{}': not a region name (lower-case letters, digits and '-', e.g. eu-west-1)",
                                   region_from, o.region);
  }

  o.endpoint = Env("AWS_ENDPOINT_URL_S3");
  if (o.endpoint.empty()) o.endpoint = Env("AWS_ENDPOINT_URL");
  if (o.endpoint.empty()) o.endpoint = Get(conf, "endpoint_url");
  while (!o.endpoint.empty() && o.endpoint.back() == '/') o.endpoint.pop_back();
  if (!o.endpoint.empty() && o.endpoint.rfind("http://", 0) != 0 && o.endpoint.rfind("https://", 0) != 0) {
    return Status::InvalidArgument("AWS_ENDPOINT_URL '{}': expected http://host[:port] or https://host[:port]",
                                   o.endpoint);
  }

  const std::string addressing = Env("LITHIFY_S3_ADDRESSING");
  if (addressing.empty()) {
    o.path_style = !o.endpoint.empty();
  } else if (addressing == "path" || addressing == "virtual") {
    o.path_style = addressing == "path";
  } else {
    return Status::InvalidArgument("LITHIFY_S3_ADDRESSING '{}': expected path or virtual", addressing);
  }
  o.unsafe_commits = Env("LITHIFY_S3_UNSAFE_COMMITS") == "1";
  return o;
}

}  // namespace lithify::io::s3
