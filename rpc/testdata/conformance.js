// conformance.js drives an aria2 JSON-RPC server through the aria2 client
// library (npm "aria2"): the same script runs against aria2c itself, which
// shows the script is right, and against Braid, which shows Braid answers
// like aria2. rpc/conformance_test.go starts both and sets the environment:
//
//   RPC_PORT, RPC_SECRET    the server
//   DIR                     the folder downloads go to
//   MIRRORS                 space-separated URLs of one file (its mirrors)
//   FILE_SIZE, FILE_SHA256  that file
//   SLOW_URL                a URL that serves a file slowly (pause, remove)
//   METALINK                a Metalink 4 document of that file, named meta.bin
//   TORRENT_B64             a .torrent (base64) of a file no peer has
//   TORRENT_INFOHASH        its info hash, in hex
//   LOGIN_URL               that file behind a Basic login (nginx)
//   LOGIN_USER, LOGIN_PASS  the login
//
// It prints one line per check and ends with "N passed, N failed"; its
// exit status is 0 only when every check passed.
"use strict";

const Aria2 = require("aria2");
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`set ${k}`);
  return v;
};
const port = Number(env("RPC_PORT"));
const secret = env("RPC_SECRET");
const dir = env("DIR");
const mirrors = env("MIRRORS").split(" ");
const fileSize = Number(env("FILE_SIZE"));
const fileSHA = env("FILE_SHA256");
const slowURL = env("SLOW_URL");
const metalink = env("METALINK");
const torrentB64 = env("TORRENT_B64");
const infoHash = env("TORRENT_INFOHASH");
const loginURL = env("LOGIN_URL");
const loginUser = env("LOGIN_USER");
const loginPass = env("LOGIN_PASS");
const endpoint = `http://127.0.0.1:${port}/jsonrpc`;

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}${detail === undefined ? "" : ": " + JSON.stringify(detail)}`);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// until polls f until it returns a truthy value or the time is up.
async function until(what, f, ms = 30000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await f();
    if (last) return last;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function raw(body) {
  const res = await fetch(endpoint, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function main() {
  const aria2 = new Aria2({ host: "127.0.0.1", port, secret });

  // Token: system.list* need none; aria2.* need the right one.
  const methods = (await raw({ jsonrpc: "2.0", id: "m", method: "system.listMethods" })).body.result;
  check("listMethods without a token", Array.isArray(methods) && methods.includes("aria2.addUri") && methods.includes("system.multicall"), methods);
  const notes = await aria2.listNotifications();
  check("listNotifications", ["onDownloadStart", "onDownloadPause", "onDownloadStop", "onDownloadComplete", "onDownloadError", "onBtDownloadComplete"].every((n) => notes.includes(n)), notes);
  const bad = await raw({ jsonrpc: "2.0", id: "b", method: "aria2.getVersion", params: ["token:wrong"] });
  check("wrong token is HTTP 400 Unauthorized", bad.status === 400 && bad.body.error && bad.body.error.message === "Unauthorized", bad);
  const none = await raw({ jsonrpc: "2.0", id: "n", method: "aria2.tellActive" });
  check("missing token is Unauthorized", none.status === 400 && none.body.error && none.body.error.message === "Unauthorized", none);
  let libErr = null;
  try {
    await new Aria2({ host: "127.0.0.1", port, secret: "wrong" }).call("getVersion");
  } catch (e) {
    libErr = e;
  }
  check("the library sees Unauthorized", libErr && libErr.message === "Unauthorized", libErr && libErr.message);
  const version = await aria2.call("getVersion");
  const session = await aria2.call("getSessionInfo");
  check("getSessionInfo", /^[0-9a-f]{40}$/.test(session.sessionId), session);
  check("getVersion", typeof version.version === "string" && Array.isArray(version.enabledFeatures), version);

  // WebSocket notifications.
  const seen = [];
  for (const n of notes) aria2.on(n, ([ev]) => seen.push([n, ev.gid]));
  await aria2.open();
  const notified = (n, gid) => until(`${n} for ${gid}`, () => seen.some(([m, g]) => m === n && g === gid));

  // Add from two mirrors of one file; it completes and is on disk.
  const gid = await aria2.call("addUri", mirrors, { dir, out: "mirrored.bin" });
  check("addUri answers a 16-digit GID", /^[0-9a-f]{16}$/.test(gid), gid);
  await notified("onDownloadComplete", gid);
  check("onDownloadStart came", seen.some(([m, g]) => m === "onDownloadStart" && g === gid), seen);
  const st = await aria2.call("tellStatus", gid);
  check("tellStatus complete", st.status === "complete" && st.totalLength === String(fileSize) && st.completedLength === String(fileSize), st);
  check("tellStatus numbers are strings", ["downloadSpeed", "connections", "numPieces", "pieceLength"].every((k) => typeof st[k] === "string"), st);
  check("tellStatus dir", st.dir === dir, st.dir);
  const data = fs.readFileSync(path.join(dir, "mirrored.bin"));
  check("the file is on disk", data.length === fileSize && crypto.createHash("sha256").update(data).digest("hex") === fileSHA);
  const some = await aria2.call("tellStatus", gid, ["gid", "status"]);
  check("tellStatus keys", Object.keys(some).sort().join(",") === "gid,status" && some.gid === gid, some);
  const files = await aria2.call("getFiles", gid);
  check("getFiles", files.length === 1 && files[0].path === path.join(dir, "mirrored.bin") && files[0].length === String(fileSize) && files[0].index === "1", files);
  const stopped = await aria2.call("tellStopped", 0, 100, ["gid", "status"]);
  check("tellStopped lists it", stopped.some((s) => s.gid === gid && s.status === "complete"), stopped);

  // A slow download: pause, unpause, remove.
  const slow = await aria2.call("addUri", [slowURL], { dir, out: "slow.bin" });
  await notified("onDownloadStart", slow);
  const active = await aria2.call("tellActive", ["gid", "status"]);
  check("tellActive lists it", active.some((s) => s.gid === slow && s.status === "active"), active);
  const servers = await until("a server in use", async () => {
    const v = await aria2.call("getServers", slow);
    return v.length === 1 && v[0].servers.length > 0 && v;
  });
  check("getServers", servers[0].index === "1" && servers[0].servers[0].uri === slowURL && typeof servers[0].servers[0].downloadSpeed === "string", servers);
  const uris = await aria2.call("getUris", slow);
  check("getUris", uris.length === 1 && uris[0].uri === slowURL && ["used", "waiting"].includes(uris[0].status), uris);
  check("pause answers the GID", (await aria2.call("pause", slow)) === slow);
  await until("paused", async () => (await aria2.call("tellStatus", slow, ["status"])).status === "paused");
  await notified("onDownloadPause", slow);
  const waiting = await aria2.call("tellWaiting", 0, 100, ["gid", "status"]);
  check("tellWaiting lists the paused one", waiting.some((s) => s.gid === slow && s.status === "paused"), waiting);
  check("unpause answers the GID", (await aria2.call("unpause", slow)) === slow);
  const after = (await aria2.call("tellStatus", slow, ["status"])).status;
  check("unpaused is waiting or active", after === "waiting" || after === "active", after);
  await until("active again", async () => (await aria2.call("tellStatus", slow, ["status"])).status === "active");
  // Its own speed limit, changed while it runs: it goes on.
  check("changeOption max-download-limit while active", (await aria2.call("changeOption", slow, { "max-download-limit": "32K" })) === "OK");
  const slowOpt = await aria2.call("getOption", slow);
  check("getOption max-download-limit in bytes", slowOpt["max-download-limit"] === "32768", slowOpt["max-download-limit"]);
  await sleep(500);
  const still = (await aria2.call("tellStatus", slow, ["status"])).status;
  check("still active after the limit changed", still === "active", still);
  check("remove answers the GID", (await aria2.call("remove", slow)) === slow);
  await until("removed", async () => (await aria2.call("tellStatus", slow, ["status"])).status === "removed");
  await notified("onDownloadStop", slow);
  const stopped2 = await aria2.call("tellStopped", 0, 100, ["gid", "status"]);
  check("tellStopped lists the removed one", stopped2.some((s) => s.gid === slow && s.status === "removed"), stopped2);

  // Added paused; its place in the queue; its options.
  const p1 = await aria2.call("addUri", [slowURL], { dir, out: "p1.bin", pause: "true" });
  const p2 = await aria2.call("addUri", [slowURL], { dir, out: "p2.bin", pause: "true", "max-download-limit": "100K" });
  const p2Limit = (await aria2.call("getOption", p2))["max-download-limit"];
  check("addUri with max-download-limit", p2Limit === "102400", p2Limit);
  check("added paused", (await aria2.call("tellStatus", p1, ["status"])).status === "paused");
  check("changePosition POS_SET", (await aria2.call("changePosition", p2, 0, "POS_SET")) === 0);
  let order = (await aria2.call("tellWaiting", 0, 100, ["gid"])).map((s) => s.gid);
  check("p2 is first now", order.indexOf(p2) === 0 && order.indexOf(p1) === 1, order);
  check("changePosition POS_END", (await aria2.call("changePosition", p2, 0, "POS_END")) === 1);
  const last = await aria2.call("tellWaiting", -1, 1, ["gid"]);
  check("tellWaiting from the end", last.length === 1 && last[0].gid === p2, last);
  const opt = await aria2.call("getOption", p1);
  check("getOption dir and out", opt.dir === dir && opt.out === "p1.bin", opt);
  check("getOption max-download-limit none", opt["max-download-limit"] === "0", opt["max-download-limit"]);
  for (const [set, want] of [["300K", "307200"], ["1M", "1048576"], ["65536", "65536"], ["0", "0"]]) {
    check(`changeOption max-download-limit ${set}`, (await aria2.call("changeOption", p1, { "max-download-limit": set })) === "OK");
    const got = (await aria2.call("getOption", p1))["max-download-limit"];
    check(`getOption max-download-limit after ${set}`, got === want, got);
  }

  const g0 = await aria2.call("getGlobalOption");
  check("changeGlobalOption", (await aria2.call("changeGlobalOption", { "max-overall-download-limit": "1M", "max-concurrent-downloads": "2" })) === "OK");
  const g1 = await aria2.call("getGlobalOption");
  check("getGlobalOption shows the change", g1["max-overall-download-limit"] === "1048576" && g1["max-concurrent-downloads"] === "2", g1);
  await aria2.call("changeGlobalOption", { "max-overall-download-limit": g0["max-overall-download-limit"], "max-concurrent-downloads": g0["max-concurrent-downloads"] });

  // system.multicall: results wrapped in arrays; each call has its token.
  const multi = await aria2.multicall([["getVersion"], ["tellStatus", gid, ["status"]]]);
  check("multicall", multi.length === 2 && multi[0][0].version === version.version && multi[1][0].status === "complete", multi);
  const mixed = await raw({
    jsonrpc: "2.0", id: "mc", method: "system.multicall",
    params: [[{ methodName: "aria2.getVersion", params: ["token:" + secret] }, { methodName: "aria2.getVersion", params: ["token:wrong"] }]],
  });
  check("multicall tokens are per call", mixed.status === 200 && Array.isArray(mixed.body.result[0]) && mixed.body.result[1].message === "Unauthorized", mixed);
  const batch = await Promise.all(await aria2.batch([["getGlobalStat"], ["tellStatus", p1, ["status"]]]));
  check("batch", batch[0].numWaiting !== undefined && batch[1].status === "paused", batch);
  const stat = await aria2.call("getGlobalStat");
  check("getGlobalStat counts", Number(stat.numWaiting) >= 2 && Number(stat.numStopped) >= 2, stat);

  // Results: remove one, then purge the rest.
  // A download removed before it started leaves no result, as in aria2.
  for (const g of [p1, p2]) {
    await aria2.call("remove", g);
    await until("gone", async () => {
      try {
        await aria2.call("tellStatus", g, ["status"]);
        return false;
      } catch (e) {
        return /is not found/.test(e.message);
      }
    });
  }
  check("removeDownloadResult", (await aria2.call("removeDownloadResult", slow)) === "OK");
  const left = await aria2.call("tellStopped", 0, 100, ["gid"]);
  check("its result is gone", left.length === 1 && left[0].gid === gid, left);
  check("purgeDownloadResult", (await aria2.call("purgeDownloadResult")) === "OK");
  const empty = await aria2.call("tellStopped", 0, 100, ["gid"]);
  check("nothing stopped after purge", empty.length === 0, empty);
  let gone = null;
  try {
    await aria2.call("tellStatus", gid);
  } catch (e) {
    gone = e;
  }
  check("a purged GID is not found", gone !== null);

  // addMetalink and addTorrent take addUri's options: dir, pause, and
  // (for the metalink's mirrors) header, user-agent and referer.
  const mdir = path.join(dir, "from-metalink");
  const mgids = await aria2.call("addMetalink", Buffer.from(metalink).toString("base64"), {
    dir: mdir, pause: "true", header: ["X-Conformance: 1"], "user-agent": "conformance/1", referer: "http://example.org/page",
  });
  check("addMetalink answers GIDs", Array.isArray(mgids) && mgids.length === 1 && /^[0-9a-f]{16}$/.test(mgids[0]), mgids);
  const ms = await aria2.call("tellStatus", mgids[0], ["status", "dir"]);
  check("addMetalink paused, in its dir", ms.status === "paused" && ms.dir === mdir, ms);
  await aria2.call("unpause", mgids[0]);
  await until("the metalink's file", async () => (await aria2.call("tellStatus", mgids[0], ["status"])).status === "complete");
  const mdata = fs.readFileSync(path.join(mdir, "meta.bin"));
  check("the metalink's file is on disk", mdata.length === fileSize && crypto.createHash("sha256").update(mdata).digest("hex") === fileSHA);
  const tdir = path.join(dir, "from-torrent");
  const tgid = await aria2.call("addTorrent", torrentB64, [], { dir: tdir, pause: "true" });
  const ts = await aria2.call("tellStatus", tgid, ["status", "dir", "infoHash"]);
  check("addTorrent paused, in its dir", ts.status === "paused" && ts.dir === tdir && ts.infoHash === infoHash, ts);
  await aria2.call("remove", tgid);

  // A server behind a Basic login: without a login the download fails
  // with aria2's code for it (24); with http-user and http-passwd it
  // completes.
  const ldir = path.join(dir, "login");
  const denied = await aria2.call("addUri", [loginURL], { dir: ldir, out: "denied.bin" });
  await notified("onDownloadError", denied);
  const ds = await aria2.call("tellStatus", denied, ["status", "errorCode"]);
  check("without a login: error 24", ds.status === "error" && ds.errorCode === "24", ds);
  const lgid = await aria2.call("addUri", [loginURL], { dir: ldir, out: "login.bin", "http-user": loginUser, "http-passwd": loginPass });
  await notified("onDownloadComplete", lgid);
  const ldata = fs.readFileSync(path.join(ldir, "login.bin"));
  check("http-user and http-passwd log in", ldata.length === fileSize && crypto.createHash("sha256").update(ldata).digest("hex") === fileSHA);

  await aria2.close();
}

main()
  .catch((e) => {
    failed++;
    console.log(`FAIL ${e.stack || e}`);
  })
  .finally(() => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 ? 0 : 1);
  });
