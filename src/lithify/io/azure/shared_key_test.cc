// The Azure backend's pieces that need no server: SharedKey's string to sign (against
// the example in Azure's "Authorize with Shared Key" documentation), connection strings,
// the environment, and the URI forms (refused before any request is sent).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "lithify/io/azure/azure_filesystem.h"
#include "lithify/io/azure/shared_key.h"
#include "lithify/io/http/crypto.h"

namespace lithify::io::azure {
namespace {

constexpr char kDevKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

TEST(SharedKeyTest, StringToSignIsTheDocumentedOne) {
  // Azure's documented string to sign for a Get Container Metadata request at
  // timeout=20 (an emulator-style path: the account also starts the path).
  std::map<std::string, std::string> headers{{"x-ms-date", "Sun, 11 Oct 2009 21:49:13 GMT"},
                                             {"x-ms-version", "2009-09-19"}};
  std::map<std::string, std::string> query{{"comp", "metadata"}, {"restype", "container"}, {"timeout", "20"}};
  EXPECT_EQ(SharedKeyStringToSign("GET", "myaccount", "/myaccount/mycontainer", query, headers, 0),
            "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:Sun, 11 Oct 2009 21:49:13 GMT\nx-ms-version:2009-09-19\n"
            "/myaccount/myaccount/mycontainer\ncomp:metadata\nrestype:container\ntimeout:20");
}

TEST(SharedKeyTest, StandardHeadersTakeTheirPlacesAndZeroLengthIsEmpty) {
  std::map<std::string, std::string> headers{{"content-type", "application/octet-stream"},
                                             {"if-none-match", "*"},
                                             {"x-ms-blob-type", "BlockBlob"},
                                             {"x-ms-date", "D"},
                                             {"x-ms-version", "V"}};
  EXPECT_EQ(SharedKeyStringToSign("PUT", "acct", "/c/a%20b", {}, headers, 5),
            "PUT\n\n\n5\n\napplication/octet-stream\n\n\n\n*\n\n\nx-ms-blob-type:BlockBlob\nx-ms-date:D\n"
            "x-ms-version:V\n/acct/c/a%20b");
  EXPECT_EQ(SharedKeyStringToSign("PUT", "acct", "/c/x", {}, headers, 0).substr(0, 8), "PUT\n\n\n\n\n");
  auto key = http::Base64Decode(kDevKey);
  ASSERT_TRUE(key.ok());
  SignSharedKey("PUT", "acct", *key, "/c/x", {}, 0, &headers);
  const std::string expected =
      "SharedKey acct:" +
      http::Base64Encode(http::HmacSha256(*key, SharedKeyStringToSign("PUT", "acct", "/c/x", {}, headers, 0)));
  EXPECT_EQ(headers["authorization"], expected);
}

TEST(AzureOptionsTest, ConnectionStrings) {
  unsetenv("LITHIFY_AZURE_BLOB_ENDPOINT");
  auto dev = AzureOptionsFromConnectionString("UseDevelopmentStorage=true");
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  EXPECT_EQ(dev->account, "devstoreaccount1");
  EXPECT_EQ(dev->blob_endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  EXPECT_EQ(dev->key.size(), 64u);
  auto full = AzureOptionsFromConnectionString(std::string("DefaultEndpointsProtocol=http;AccountName=a1;AccountKey=") +
                                               kDevKey + ";BlobEndpoint=http://127.0.0.1:9/a1/;");
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(full->account, "a1");
  EXPECT_EQ(full->blob_endpoint, "http://127.0.0.1:9/a1");
  auto suffix = AzureOptionsFromConnectionString("AccountName=a2;SharedAccessSignature=sv=1&sig=x%3D;"
                                                 "EndpointSuffix=core.chinacloudapi.cn");
  ASSERT_TRUE(suffix.ok()) << suffix.status().ToString();
  EXPECT_EQ(suffix->sas_token, "sv=1&sig=x%3D");
  EXPECT_EQ(suffix->blob_endpoint, "https://a2.blob.core.chinacloudapi.cn");
  EXPECT_TRUE(AzureOptionsFromConnectionString("AccountName=a;AccountKey=not base64!").status().IsInvalidArgument());
  EXPECT_TRUE(AzureOptionsFromConnectionString("AccountName=a").status().IsInvalidArgument());
  auto unknown = AzureOptionsFromConnectionString("AccountName=a;Bogus=1");
  ASSERT_TRUE(unknown.status().IsInvalidArgument());
  EXPECT_NE(unknown.status().message().find("bogus"), std::string::npos);
}

TEST(AzureOptionsTest, Environment) {
  for (const char* v : {"AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY",
                        "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_SAS_TOKEN", "LITHIFY_AZURE_BLOB_ENDPOINT"}) {
    unsetenv(v);
  }
  auto none = AzureOptionsFromEnvironment();
  ASSERT_TRUE(none.status().IsInvalidArgument());
  EXPECT_NE(none.status().message().find("AZURE_STORAGE_ACCOUNT"), std::string::npos);
  auto no_key = AzureOptionsFromEnvironment("hinted");
  ASSERT_TRUE(no_key.status().IsInvalidArgument());
  EXPECT_NE(no_key.status().message().find("'hinted'"), std::string::npos);
  setenv("AZURE_STORAGE_ACCOUNT_KEY", kDevKey, 1);
  auto hinted = AzureOptionsFromEnvironment("hinted");
  ASSERT_TRUE(hinted.ok()) << hinted.status().ToString();
  EXPECT_EQ(hinted->blob_endpoint, "https://hinted.blob.core.windows.net");
  setenv("AZURE_STORAGE_ACCOUNT", "acct", 1);
  setenv("AZURE_STORAGE_SAS_TOKEN", "?sv=1", 1);
  setenv("LITHIFY_AZURE_BLOB_ENDPOINT", "http://127.0.0.1:9/acct/", 1);
  auto o = AzureOptionsFromEnvironment("hinted");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->account, "acct");
  EXPECT_EQ(o->sas_token, "sv=1");
  EXPECT_EQ(o->blob_endpoint, "http://127.0.0.1:9/acct");
  setenv("AZURE_STORAGE_KEY", "%%%%", 1);
  auto bad = AzureOptionsFromEnvironment();
  ASSERT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("AZURE_STORAGE_KEY"), std::string::npos);
  for (const char* v : {"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY", "AZURE_STORAGE_ACCOUNT_KEY",
                        "AZURE_STORAGE_SAS_TOKEN", "LITHIFY_AZURE_BLOB_ENDPOINT"}) {
    unsetenv(v);
  }
}

TEST(AzureUriTest, MalformedOrForeignUrisAreRefusedBeforeAnyRequest) {
  AzureOptions o;
  o.account = "acct";
  o.key = "k";
  o.blob_endpoint = "http://127.0.0.1:1";  // nothing listens: a request would fail differently
  o.max_attempts = 1;
  auto fs = NewAzureFileSystem(o);
  auto no_at = fs->Head("abfss://container.dfs.core.windows.net/t");
  ASSERT_TRUE(no_at.status().IsInvalidArgument()) << no_at.status().ToString();
  EXPECT_NE(no_at.status().message().find("<container>@<account>"), std::string::npos);
  auto other = fs->Head("abfss://c@other.dfs.core.windows.net/t");
  ASSERT_TRUE(other.status().IsInvalidArgument()) << other.status().ToString();
  EXPECT_NE(other.status().message().find("'other'"), std::string::npos);
  EXPECT_TRUE(fs->Head("https://example.com/c/t").status().IsInvalidArgument());
  EXPECT_TRUE(fs->Head("https://acct.blob.core.windows.net/").status().IsInvalidArgument());
  EXPECT_TRUE(fs->Create("az://c/dir/").status().IsInvalidArgument());
  EXPECT_TRUE(fs->PutIfAbsent("az://c", AsBytes("x")).IsInvalidArgument());
  // Well-formed spellings reach the network (and fail there: nothing listens).
  for (const char* uri : {"az://c/t", "abfs://c@acct.dfs.core.windows.net/t", "wasbs://c@ACCT.blob.core.windows.net/t",
                          "https://acct.blob.core.windows.net/c/t"}) {
    auto h = fs->Head(uri);
    ASSERT_TRUE(h.status().IsIOError()) << uri << ": " << h.status().ToString();
    EXPECT_NE(h.status().message().find("127.0.0.1:1"), std::string::npos) << h.status().ToString();
  }
}

}  // namespace
}  // namespace lithify::io::azure
