// What the background, the popup and the options page share: the
// settings and the two ways to reach Braid (native messaging first, the
// aria2 JSON-RPC when configured).
"use strict";

// HOST is the native messaging host `braid install` registers.
const HOST = "io.github.braid_dm.braid";

const DEFAULTS = {
  capture: false,        // take over downloads the browser starts
  minSizeMB: 1,          // ... of at least this size (0: any; unknown sizes are taken)
  types: "",             // ... with these extensions ("zip iso exe"; empty: any)
  bypassKey: "Alt",      // held while clicking: the browser keeps the download ("": none)
  rpcURL: "",            // aria2 JSON-RPC, e.g. http://127.0.0.1:6800/jsonrpc ("": off)
  rpcSecret: "",
};

async function settings() {
  const s = await chrome.storage.local.get(DEFAULTS);
  return Object.assign({}, DEFAULTS, s);
}

// BraidError carries a message for the user.
class BraidError extends Error {}

// native sends one request to the native host and returns its answer.
async function native(msg) {
  let rep;
  try {
    rep = await chrome.runtime.sendNativeMessage(HOST, msg);
  } catch (e) {
    throw new BraidError("Braid is not installed for this browser (run: braid install): " + e.message.replace(/\.$/, ""));
  }
  if (!rep || !rep.ok) {
    throw new BraidError((rep && rep.error) || "Braid gave no answer");
  }
  return rep;
}

// rpc calls one aria2 JSON-RPC method with the secret.
async function rpc(s, method, params) {
  const body = {
    jsonrpc: "2.0", id: "braid-ext", method,
    params: (s.rpcSecret ? ["token:" + s.rpcSecret] : []).concat(params),
  };
  let res;
  try {
    res = await fetch(s.rpcURL, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  } catch (e) {
    throw new BraidError("cannot reach " + s.rpcURL + ": " + e.message);
  }
  const j = await res.json().catch(() => null);
  if (!j && res.status === 403) {
    // Braid and aria2 refuse a page's origin that is not allowed.
    throw new BraidError(s.rpcURL + " refuses this extension: allow the origin " + location.origin +
      " in Braid's Settings → Remote control (aria2: --rpc-allow-origin-all)");
  }
  if (!j) throw new BraidError(s.rpcURL + " answered HTTP " + res.status);
  if (j.error) throw new BraidError(j.error.message || "RPC error");
  return j.result;
}

// cookiesFor are the cookies the browser would send for url.
async function cookiesFor(url, storeId) {
  const q = {url};
  if (storeId) q.storeId = storeId;
  try {
    return await chrome.cookies.getAll(q);
  } catch (e) {
    return [];
  }
}

// addToBraid hands a link over: to the native host, else to the RPC when
// one is configured. It returns {name, warning}.
async function addToBraid(link) {
  const s = await settings();
  const cookies = await cookiesFor(link.url, link.storeId);
  const msg = {
    type: "add",
    url: link.url,
    referrer: link.referrer || "",
    userAgent: navigator.userAgent,
    cookies: cookies.map(c => ({name: c.name, value: c.value, path: c.path, secure: c.secure})),
  };
  if (link.filename) msg.filename = link.filename;
  try {
    const rep = await native(msg);
    return {name: rep.name || link.url, warning: rep.warning || ""};
  } catch (e) {
    if (!s.rpcURL) throw e;
  }
  // The RPC: aria2's options. Braid's own RPC keeps no headers yet and
  // says so; aria2 takes the cookies.
  const opts = {};
  if (link.referrer) opts.referer = link.referrer;
  if (link.filename) opts.out = link.filename;
  if (cookies.length) opts.header = ["Cookie: " + cookies.map(c => c.name + "=" + c.value).join("; ")];
  try {
    const gid = await rpc(s, "aria2.addUri", [[link.url], opts]);
    return {name: await rpcName(s, gid, link), warning: ""};
  } catch (e) {
    // Braid's RPC refuses headers it cannot keep; most pages set some
    // cookie, so ask again without them, and say so.
    if (!opts.header || !/header/i.test(e.message)) throw e;
  }
  delete opts.header;
  const gid = await rpc(s, "aria2.addUri", [[link.url], opts]);
  return {name: await rpcName(s, gid, link), warning: "The remote control does not take the browser's cookies: a download that needs a login may fail"};
}

// rpcName is the file name of the download gid, as far as it is known.
async function rpcName(s, gid, link) {
  try {
    const st = await rpc(s, "aria2.tellStatus", [gid, ["files"]]);
    const p = st.files && st.files[0] && (st.files[0].path || (st.files[0].uris[0] || {}).uri);
    if (p) return p.split(/[\\/]/).pop();
  } catch (e) {
    // The name is only for the message.
  }
  return link.filename || link.url;
}

// listDownloads returns Braid's downloads that are not done:
// [{name, bytes, size, state}].
async function listDownloads() {
  const s = await settings();
  try {
    return (await native({type: "list"})).downloads || [];
  } catch (e) {
    if (!s.rpcURL) throw e;
  }
  const keys = ["gid", "status", "totalLength", "completedLength", "files"];
  const [active, waiting] = await Promise.all([
    rpc(s, "aria2.tellActive", [keys]),
    rpc(s, "aria2.tellWaiting", [0, 200, keys]),
  ]);
  const state = {active: "running", waiting: "queued", paused: "paused", error: "failed"};
  return active.concat(waiting).map(d => {
    const f = (d.files && d.files[0] && d.files[0].path) || d.gid;
    return {
      name: f.split(/[\\/]/).pop(),
      bytes: Number(d.completedLength),
      size: Number(d.totalLength) || -1,
      state: state[d.status] || d.status,
    };
  });
}
