// The Azure Blob backend of io::FileSystem. Paths are URIs as users write them:
//   az://<container>/<path>                                   (the configured account)
//   abfs[s]://<container>@<account>.dfs.core.windows.net/<path>  (Hadoop ABFS spelling)
//   wasb[s]://<container>@<account>.blob.core.windows.net/<path>
//   https://<account>.blob.core.windows.net/<container>/<path>
// All of them are served through the Blob service's REST API (a storage account with a
// hierarchical namespace answers it too). Requests are authorized with SharedKey
// (shared_key.h) or a SAS token and sent with libcurl (io/http). What each call costs:
//   Head              Get Blob Properties; on 404 one List Blobs (maxresults 1) to tell
//                     a "directory"
//   OpenForRead       one Get Blob of the first 64 KiB (x-ms-range), which tells the size
//                     and ETag and is kept: a blob up to 64 KiB costs no further request
//                     (Azure has no suffix range, so a larger Parquet footer is one more
//                     GET; an empty blob a HEAD after the 416); each other ReadAt one
//                     ranged Get Blob (If-Match the opened ETag: a replaced blob fails
//                     the read instead of mixing versions); ReadRanges coalesces and
//                     sends up to 8 at once
//   ListRecursive     List Blobs (flat) pages of 5,000, marker paging; sorted
//   ListFrom          List Blobs with delimiter '/' and startFrom = the key of `start_after`
//                     (x-ms-version 2026-02-06; inclusive), every page; entries up to
//                     `start_after` are also filtered here, so a service that ignores
//                     startFrom gives the same result after listing the whole directory
//   Create            one Put Blob at Close below the block size; larger: Put Block as
//                     blocks fill (up to 4 at once, in the background), Put Block List at
//                     Close. Uncommitted blocks are never visible; an aborted or failed
//                     stream commits nothing (the service discards uncommitted blocks)
//   PutIfAbsent       Put Blob with If-None-Match: * (409 BlobAlreadyExists -> AlreadyExists)
//   Delete / DeleteMany   Delete Blob (a missing blob is OK) / up to 8 at once
// Every request has a timeout and is retried with jittered backoff on connection errors,
// 5xx (ServerBusy, OperationTimedOut, InternalError) and 429. A conditional Put Blob that
// meets an existing blob after an earlier copy of it may have been applied reads the blob
// back: the same bytes mean our write won and only its reply was lost (io/http/retry.h).
//
// Object stores have no directories: a "directory" is a name prefix, as on S3.
//
// Thread-safety: every call may be made from many threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"

namespace lithify::io::azure {

struct AzureOptions {
  std::string account;
  // The decoded account key (SharedKey); empty when a SAS token authorizes instead.
  std::string key;
  // A SAS token (the query string without '?'), used when there is no key.
  std::string sas_token;
  // The account's Blob endpoint without a trailing '/': "https://<account>.blob.core.windows.net",
  // or an emulator's path-style one with the account in the path,
  // "http://127.0.0.1:10000/devstoreaccount1".
  std::string blob_endpoint;
  // Blobs below this size are written with one Put Blob, larger ones in blocks of it.
  uint64_t block_size = 8 << 20;
  // Entries per List Blobs request (the service's maximum is 5,000).
  size_t list_page_size = 5000;
  int max_attempts = 6;  // per request, the first included
  long request_timeout_ms = 300000;  // per request; a stall of 30 s fails sooner (io/http)
};

// Options from the environment, as Azure's own tools read it:
//   AZURE_STORAGE_CONNECTION_STRING  "AccountName=..;AccountKey=..;BlobEndpoint=..;..."
//                     (also SharedAccessSignature, DefaultEndpointsProtocol,
//                     EndpointSuffix, UseDevelopmentStorage=true); when set it is the
//                     whole configuration
//   else AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY (or AZURE_STORAGE_ACCOUNT_KEY),
//        AZURE_STORAGE_SAS_TOKEN; the account defaults to `account_hint` (the account a
//        URI names)
//   LITHIFY_AZURE_BLOB_ENDPOINT  overrides the Blob endpoint (an emulator: path-style,
//                     "http://127.0.0.1:10000/devstoreaccount1")
// InvalidArgument naming the settings when no account or no credentials are found, or
// a value is malformed (a key that is not Base64, an unknown connection-string field).
Result<AzureOptions> AzureOptionsFromEnvironment(std::string_view account_hint = {});

// The fields of a connection string, validated (exposed for tests).
Result<AzureOptions> AzureOptionsFromConnectionString(std::string_view connection_string);

std::shared_ptr<FileSystem> NewAzureFileSystem(AzureOptions options);

// Registers az, abfs, abfss, wasb, wasbs and https (https URIs only of
// *.blob.core.windows.net / *.dfs.core.windows.net hosts) with io::RegisterFileSystem.
// One FileSystem per account, made from AzureOptionsFromEnvironment() on first use.
// Idempotent.
void RegisterAzureFileSystem();

}  // namespace lithify::io::azure
