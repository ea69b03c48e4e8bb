// Tells the background when a link is clicked with the capture's bypass
// key held, so the download it starts stays the browser's. The click's
// own modifier state is what counts: the download starts after the key
// may have been let go.
"use strict";

(function () {
  let key = "Alt";
  chrome.storage.local.get({bypassKey: "Alt"}).then(s => { key = s.bypassKey; }).catch(() => {});
  chrome.storage.onChanged.addListener(ch => { if (ch.bypassKey) key = ch.bypassKey.newValue; });

  const held = e => key && e.getModifierState && e.getModifierState(key);
  const tell = e => {
    if (held(e)) chrome.runtime.sendMessage({type: "bypass"}).catch(() => {});
  };
  addEventListener("mousedown", tell, true);
  addEventListener("click", tell, true);
  addEventListener("auxclick", tell, true);
})();
