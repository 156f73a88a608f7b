// AzureOptionsFromEnvironment: connection strings and the AZURE_STORAGE_* variables.
#include <cstdlib>
#include <map>
#include <string>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"
#include "lithify/io/azure/azure_filesystem.h"
#include "lithify/io/http/crypto.h"

namespace lithify::io::azure {

namespace {

// Azurite's documented development account (public, the same in every installation).
constexpr char kDevAccount[] = "devstoreaccount1";
constexpr char kDevKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string StripSlashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

Status SetKey(AzureOptions* o, const std::string& base64, std::string_view setting) {
  auto key = http::Base64Decode(base64);
  if (!key.ok() || key->empty()) {
    return Status::InvalidArgument("{}: the account key is not Base64 (as the Azure portal shows it)", setting);
  }
  o->key = std::move(*key);
  return Status::OK();
}

Status Finish(AzureOptions* o, std::string_view source) {
  if (o->account.empty()) {
    return Status::InvalidArgument(
        "no Azure storage account: set AZURE_STORAGE_ACCOUNT (with AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN) "
        "or AZURE_STORAGE_CONNECTION_STRING, or name it in the URI (abfss://<container>@<account>.dfs.core."
        "windows.net/...)");
  }
  if (o->key.empty() && o->sas_token.empty()) {
    return Status::InvalidArgument(
        "no Azure credentials for storage account '{}' in {}: set AZURE_STORAGE_KEY (or AZURE_STORAGE_ACCOUNT_KEY) "
        "or AZURE_STORAGE_SAS_TOKEN, or AZURE_STORAGE_CONNECTION_STRING",
        o->account, source);
  }
  while (!o->sas_token.empty() && o->sas_token.front() == '?') o->sas_token.erase(0, 1);
  if (std::string endpoint = Env("LITHIFY_AZURE_BLOB_ENDPOINT"); !endpoint.empty()) o->blob_endpoint = endpoint;
  if (o->blob_endpoint.empty()) o->blob_endpoint = "https://" + o->account + ".blob.core.windows.net";
  o->blob_endpoint = StripSlashes(o->blob_endpoint);
  if (o->blob_endpoint.rfind("http://", 0) != 0 && o->blob_endpoint.rfind("https://", 0) != 0) {
    return Status::InvalidArgument("the Azure Blob endpoint '{}' is not an http:// or https:// URL",
                                   o->blob_endpoint);
  }
  return Status::OK();
}

}  // namespace

Result<AzureOptions> AzureOptionsFromConnectionString(std::string_view text) {
  std::map<std::string, std::string> fields;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(';', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return Status::InvalidArgument("AZURE_STORAGE_CONNECTION_STRING: expected Name=value items separated by ';'");
    }
    // Values may contain '=' (Base64 keys, SAS tokens): split at the first one only.
    fields[AsciiLower(std::string(item.substr(0, eq)))] = std::string(item.substr(eq + 1));
  }
  AzureOptions o;
  if (AsciiLower(fields["usedevelopmentstorage"]) == "true") {
    o.account = kDevAccount;
    o.key = std::string();
    LITHIFY_RETURN_NOT_OK(SetKey(&o, kDevKey, "UseDevelopmentStorage"));
    o.blob_endpoint = std::string("http://127.0.0.1:10000/") + kDevAccount;
  }
  for (const auto& [name, value] : fields) {
    if (name == "accountname") {
      o.account = value;
    } else if (name == "accountkey") {
      LITHIFY_RETURN_NOT_OK(SetKey(&o, value, "AZURE_STORAGE_CONNECTION_STRING AccountKey"));
    } else if (name == "sharedaccesssignature") {
      o.sas_token = value;
    } else if (name == "blobendpoint") {
      o.blob_endpoint = value;
    } else if (name == "defaultendpointsprotocol" || name == "endpointsuffix" || name == "usedevelopmentstorage" ||
               name == "queueendpoint" || name == "tableendpoint" || name == "fileendpoint" ||
               name == "dfsendpoint") {
      // Used below or not ours.
    } else {
      return Status::InvalidArgument("AZURE_STORAGE_CONNECTION_STRING: unknown field '{}'", name);
    }
  }
  if (o.blob_endpoint.empty() && !o.account.empty()) {
    std::string protocol = fields.count("defaultendpointsprotocol") ? AsciiLower(fields["defaultendpointsprotocol"]) : "https";
    std::string suffix = fields.count("endpointsuffix") ? fields["endpointsuffix"] : "core.windows.net";
    o.blob_endpoint = protocol + "://" + o.account + ".blob." + suffix;
  }
  LITHIFY_RETURN_NOT_OK(Finish(&o, "AZURE_STORAGE_CONNECTION_STRING"));
  return o;
}

Result<AzureOptions> AzureOptionsFromEnvironment(std::string_view account_hint) {
  if (std::string conn = Env("AZURE_STORAGE_CONNECTION_STRING"); !conn.empty()) {
    return AzureOptionsFromConnectionString(conn);
  }
  AzureOptions o;
  o.account = Env("AZURE_STORAGE_ACCOUNT");
  if (o.account.empty()) o.account = std::string(account_hint);
  std::string key = Env("AZURE_STORAGE_KEY");
  const char* key_name = "AZURE_STORAGE_KEY";
  if (key.empty()) {
    key = Env("AZURE_STORAGE_ACCOUNT_KEY");
    key_name = "AZURE_STORAGE_ACCOUNT_KEY";
  }
  if (!key.empty()) LITHIFY_RETURN_NOT_OK(SetKey(&o, key, key_name));
  o.sas_token = Env("AZURE_STORAGE_SAS_TOKEN");
  LITHIFY_RETURN_NOT_OK(Finish(&o, "the environment"));
  return o;
}

}  // namespace lithify::io::azure
