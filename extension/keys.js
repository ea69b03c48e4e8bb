// Tells the background whether the capture's bypass key is held, so a
// download started with it held stays the browser's.
"use strict";

(function () {
  let key = "Alt";
  let held = false;
  chrome.storage.local.get({bypassKey: "Alt"}).then(s => { key = s.bypassKey; }).catch(() => {});
  chrome.storage.onChanged.addListener(ch => { if (ch.bypassKey) key = ch.bypassKey.newValue; });

  function tell(h) {
    if (h === held) return;
    held = h;
    chrome.runtime.sendMessage({type: "bypass", held: h}).catch(() => {});
  }
  addEventListener("keydown", e => { if (key && e.key === key) tell(true); }, true);
  addEventListener("keyup", e => { if (key && e.key === key) tell(false); }, true);
  addEventListener("blur", () => tell(false), true);
})();
