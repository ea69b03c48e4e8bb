#!/bin/sh
#   tools/package-extension.sh [DIR]
#
# Packages the browser extension in extension/ for the stores:
# dist/chrome.zip (Chrome Web Store, Edge Add-ons) and dist/firefox.zip
# (addons.mozilla.org). Both leave out the manifest's "key", which only
# pins the extension's ID for unpacked installs: each store assigns its
# own (Firefox keeps the ID in browser_specific_settings). The Chromium
# zip also drops the Firefox-only background "scripts" and settings.
# Needs zip and python3.
set -eu
cd "$(dirname "$0")/.."
out=${1:-dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for store in chrome firefox; do
	mkdir "$tmp/$store"
	cp -R extension/. "$tmp/$store/"
	python3 - "$tmp/$store/manifest.json" "$store" <<'PY'
import json, sys
path, store = sys.argv[1], sys.argv[2]
m = json.load(open(path))
m.pop("key", None)
if store == "chrome":
    m.pop("browser_specific_settings", None)
    m["background"].pop("scripts", None)
else:
    m["background"].pop("service_worker", None)
json.dump(m, open(path, "w"), indent=2)
PY
	rm -f "$out/$store.zip"
	(cd "$tmp/$store" && zip -q -r -X "$out/$store.zip" .)
	echo "$out/$store.zip"
done
