// Creates a Blob container on the Azure test server (Azurite), authorized with SharedKey;
// scripts/servers.sh calls it after start. Exit 0 when the container exists afterwards
// (201 Created, or 409 ContainerAlreadyExists).
// Usage: node create-container.mjs ENDPOINT ACCOUNT KEY CONTAINER
//   ENDPOINT: the account's path-style Blob endpoint, http://127.0.0.1:PORT/ACCOUNT
import { createHmac } from "node:crypto";

const [endpoint, account, key, container] = process.argv.slice(2);
if (!container) {
  console.error("usage: node create-container.mjs ENDPOINT ACCOUNT KEY CONTAINER");
  process.exit(2);
}
const url = new URL(`${endpoint.replace(/\/+$/, "")}/${container}?restype=container`);
const date = new Date().toUTCString();
const version = "2021-08-06";
// SharedKey's string to sign: verb, 11 standard headers (all empty here), the x-ms-
// headers, then the canonicalized resource.
const toSign = ["PUT", "", "", "", "", "", "", "", "", "", "", "",
  `x-ms-date:${date}\nx-ms-version:${version}\n/${account}${url.pathname}\nrestype:container`].join("\n");
const signature = createHmac("sha256", Buffer.from(key, "base64")).update(toSign, "utf8").digest("base64");
const res = await fetch(url, {
  method: "PUT",
  headers: { "x-ms-date": date, "x-ms-version": version, authorization: `SharedKey ${account}:${signature}` },
});
if (res.status === 201 || res.status === 409) process.exit(0);
console.error(`create-container: PUT ${url} answered ${res.status}: ${await res.text()}`);
process.exit(1);
