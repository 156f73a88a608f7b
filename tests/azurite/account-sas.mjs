// Prints an account SAS token (Blob service; read, write, delete, list, add, create on
// service, containers and objects; valid until 2099) for the test server's account, so
// that tests can authorize with AZURE_STORAGE_SAS_TOKEN instead of the key; with EXPIRY
// (an ISO time such as 2001-01-01T00:00:00Z) a token that expires then, for the expired-
// credentials test.
// Usage: node account-sas.mjs ACCOUNT KEY [EXPIRY]
import { createHmac } from "node:crypto";

const [account, key, expiry] = process.argv.slice(2);
if (!key) {
  console.error("usage: node account-sas.mjs ACCOUNT KEY");
  process.exit(2);
}
const f = { sp: "rwdlac", ss: "b", srt: "sco", st: "", se: "2099-01-01T00:00:00Z", sip: "", spr: "https,http",
  sv: "2021-08-06", ses: "" };
if (expiry) f.se = expiry;
// The account SAS string to sign of versions 2020-12-06 and later.
const toSign = [account, f.sp, f.ss, f.srt, f.st, f.se, f.sip, f.spr, f.sv, f.ses, ""].join("\n");
const sig = createHmac("sha256", Buffer.from(key, "base64")).update(toSign, "utf8").digest("base64");
const q = new URLSearchParams({ sv: f.sv, ss: f.ss, srt: f.srt, sp: f.sp, se: f.se, spr: f.spr, sig });
console.log(q.toString());
