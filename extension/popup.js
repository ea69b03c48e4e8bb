// The toolbar popup: Braid's downloads that are not done, with their
// progress, refreshed each second, and a field to add a link.
"use strict";

const $ = id => document.getElementById(id);

function size(n) {
  if (n < 0) return "?";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) { n /= 1000; i++; }
  return (i ? n.toFixed(1) : String(n)) + " " + units[i];
}

function row(d) {
  const li = document.createElement("li");
  li.className = "download " + d.state;
  li.dataset.job = d.job || "";
  const name = document.createElement("div");
  name.className = "name";
  name.textContent = d.name;
  name.title = d.name;
  const bar = document.createElement("progress");
  bar.max = d.size > 0 ? d.size : 1;
  if (d.size > 0) bar.value = d.bytes;
  const text = document.createElement("div");
  text.className = "facts";
  text.textContent = d.state + " · " + size(d.bytes) + " of " + size(d.size) + (d.error ? " · " + d.error : "");
  li.append(name, bar, text);
  return li;
}

async function refresh() {
  let list;
  try {
    list = await listDownloads();
  } catch (e) {
    $("status").textContent = e.message;
    return;
  }
  $("downloads").replaceChildren(...list.map(row));
  $("empty").hidden = list.length > 0;
}

$("add").addEventListener("submit", async ev => {
  ev.preventDefault();
  $("go").disabled = true;
  $("status").textContent = "Adding…";
  // The background adds it, as the context menu does.
  const r = await chrome.runtime.sendMessage({type: "add", url: $("url").value.trim()});
  $("go").disabled = false;
  if (r && r.ok) {
    $("status").textContent = "Added " + r.name + (r.warning ? ". " + r.warning : "");
    $("url").value = "";
  } else {
    $("status").textContent = (r && r.error) || "Braid did not answer";
  }
  refresh();
});

refresh();
setInterval(refresh, 1000);
