// The options page: the capture's rules and the RPC fallback.
"use strict";

const $ = id => document.getElementById(id);
const fields = Object.keys(DEFAULTS);

async function load() {
  const s = await settings();
  for (const k of fields) {
    const el = $(k);
    if (el.type === "checkbox") el.checked = s[k];
    else el.value = s[k];
  }
}

async function save() {
  const s = {};
  for (const k of fields) {
    const el = $(k);
    s[k] = el.type === "checkbox" ? el.checked : el.type === "number" ? Math.max(0, Number(el.value) || 0) : el.value.trim();
  }
  if (s.rpcURL && !/^https?:\/\//.test(s.rpcURL)) {
    $("status").textContent = "The address must start with http:// or https://";
    return false;
  }
  await chrome.storage.local.set(s);
  $("status").textContent = "Saved.";
  return true;
}

async function test() {
  if (!(await save())) return;
  try {
    const rep = await native({type: "ping"});
    $("status").textContent = "Braid answers through native messaging (protocol " + rep.version + ").";
    return;
  } catch (e) {
    const s = await settings();
    if (!s.rpcURL) {
      $("status").textContent = e.message;
      return;
    }
    try {
      const v = await rpc(s, "aria2.getVersion", []);
      $("status").textContent = "Native messaging: " + e.message + ". The remote control answers (version " + v.version + ").";
    } catch (e2) {
      $("status").textContent = "Native messaging: " + e.message + ". Remote control: " + e2.message;
    }
  }
}

// Firefox lets the user take back the access to sites that reading a
// link's cookies needs; ask for it again from here.
const ALL_SITES = {origins: ["<all_urls>"]};
async function checkAccess() {
  $("access").hidden = await chrome.permissions.contains(ALL_SITES);
}
$("grant").addEventListener("click", async () => {
  await chrome.permissions.request(ALL_SITES).catch(() => false);
  checkAccess();
});
checkAccess();

$("save").addEventListener("click", save);
$("test").addEventListener("click", test);
load();
