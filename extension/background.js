// Braid's extension in the background: the "Download with Braid" menu,
// the optional capture of the browser's own downloads, and the requests
// of the popup. A service worker in Chromium, an event page in Firefox.
"use strict";

if (typeof importScripts === "function") importScripts("common.js");

const MENU = "braid-download-link";

function makeMenu() {
  chrome.contextMenus.removeAll(() => {
    chrome.contextMenus.create({id: MENU, title: "Download with Braid", contexts: ["link"]});
  });
}
chrome.runtime.onInstalled.addListener(makeMenu);
chrome.runtime.onStartup.addListener(makeMenu);

function notify(title, message) {
  chrome.notifications.create({
    type: "basic", iconUrl: chrome.runtime.getURL("icons/48.png"), title, message: message || "",
  });
}

// send hands a link to Braid and tells the user how it went.
async function send(link) {
  try {
    const r = await addToBraid(link);
    notify("Braid: added " + r.name, r.warning);
    return {ok: true, name: r.name, warning: r.warning};
  } catch (e) {
    notify("Braid could not add the link", e.message);
    return {ok: false, error: e.message};
  }
}

chrome.contextMenus.onClicked.addListener((info, tab) => {
  if (info.menuItemId !== MENU || !info.linkUrl) return;
  send({url: info.linkUrl, referrer: info.pageUrl || (tab && tab.url) || "", storeId: tab && tab.cookieStoreId});
});

// The last click with the bypass key held, as the pages' keys.js reports
// it: a download that starts within BYPASS_MS of it stays the browser's.
let bypassAt = 0;
const BYPASS_MS = 5000;

function bypassed() {
  return Date.now() - bypassAt < BYPASS_MS;
}

chrome.runtime.onMessage.addListener((msg, sender, reply) => {
  if (!msg || sender.id !== chrome.runtime.id) return false;
  switch (msg.type) {
    case "bypass":
      bypassAt = Date.now();
      return false;
    case "add": // the popup's "add a link"
      send({url: msg.url, referrer: msg.referrer || ""}).then(reply);
      return true;
    case "list":
      listDownloads().then(d => reply({ok: true, downloads: d}), e => reply({ok: false, error: e.message}));
      return true;
  }
  return false;
});

// Capture. Downloads the extension restarted after a failed hand-over
// are the browser's to keep.
const passThrough = new Set();

function extensionOf(name) {
  const base = name.split(/[\\/]/).pop().split("?")[0];
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

// wanted says whether Braid takes the download item under the settings.
function wanted(s, item) {
  if (!s.capture || bypassed() || item.incognito) return false;
  if (item.byExtensionId === chrome.runtime.id || passThrough.has(item.url)) return false;
  if (!/^https?:/i.test(item.finalUrl || item.url)) return false; // blob:, data:, file:
  const size = item.fileSize > 0 ? item.fileSize : item.totalBytes;
  if (size > 0 && size < s.minSizeMB * 1024 * 1024) return false;
  const types = s.types.toLowerCase().split(/[\s,;]+/).map(t => t.replace(/^\./, "")).filter(Boolean);
  if (types.length) {
    let name = item.filename || "";
    if (!name) {
      try { name = new URL(item.finalUrl || item.url).pathname; } catch (e) { name = ""; }
    }
    if (!types.includes(extensionOf(name))) return false;
  }
  return true;
}

async function takeOver(item) {
  await chrome.downloads.cancel(item.id).catch(() => {});
  await chrome.downloads.erase({id: item.id}).catch(() => {});
  const name = (item.filename || "").split(/[\\/]/).pop();
  const r = await send({url: item.finalUrl || item.url, referrer: item.referrer || "", filename: name || undefined});
  if (!r.ok) {
    // Braid could not take it: the browser downloads it after all.
    passThrough.add(item.url);
    chrome.downloads.download({url: item.url}).catch(() => {});
  }
}

if (chrome.downloads.onDeterminingFilename) {
  // Chromium: the response's size, type and file name are known here.
  chrome.downloads.onDeterminingFilename.addListener((item, suggest) => {
    settings().then(s => {
      if (wanted(s, item)) {
        takeOver(item);
      } else {
        passThrough.delete(item.url);
        suggest();
      }
    });
    return true;
  });
} else {
  // Firefox: decide when the download is created.
  chrome.downloads.onCreated.addListener(item => {
    settings().then(s => {
      if (wanted(s, item)) takeOver(item);
      else passThrough.delete(item.url);
    });
  });
}
