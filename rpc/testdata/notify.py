"""The add, pause, remove and notification steps of an aria2 client, through
python's websocket-client (what aria2p uses for notifications), against the
JSON-RPC WebSocket at ws://127.0.0.1:PORT/jsonrpc. It prints one JSON line
per step with the shape of the answer (types, keys, notification methods),
GIDs left out, so two daemons' runs compare equal when their answers have
the same shape.

usage: notify.py PORT SECRET FAST_LINK SLOW_LINK
"""
import json
import sys
import time

import websocket

port, secret, fast, slow = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
# The handshake carries websocket-client's default Origin, the RPC's own
# (http://127.0.0.1:PORT).
ws = websocket.create_connection("ws://127.0.0.1:%s/jsonrpc" % port, timeout=30)
token = "token:" + secret
seen = []  # notifications, (method, gid)
calls = 0


def call(method, *params):
    global calls
    calls += 1
    ident = "c%d" % calls
    ws.send(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": [token] + list(params)}))
    while True:
        msg = json.loads(ws.recv())
        if msg.get("id") == ident:
            if "error" in msg:
                raise SystemExit("%s: %s" % (method, msg["error"]))
            return msg["result"]
        if "method" in msg:
            seen.append((msg["method"], msg["params"][0]["gid"], sorted(msg["params"][0])))


def wait(method, gid):
    end = time.time() + 60
    while time.time() < end:
        for m, g, keys in seen:
            if m == method and g == gid:
                return keys
        msg = json.loads(ws.recv())
        if "method" in msg:
            seen.append((msg["method"], msg["params"][0]["gid"], sorted(msg["params"][0])))
    raise SystemExit("no %s for %s within 60 s" % (method, gid))


def shape(v):
    if isinstance(v, dict):
        return {k: shape(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [shape(v[0])] if v else []
    return type(v).__name__


def step(name, **what):
    print(json.dumps(dict(step=name, **what), sort_keys=True))


gid = call("aria2.addUri", [fast], {})
step("addUri", result=shape(gid), gid_hex16=len(gid) == 16 and all(c in "0123456789abcdef" for c in gid))
step("onDownloadStart", params=wait("aria2.onDownloadStart", gid))
step("onDownloadComplete", params=wait("aria2.onDownloadComplete", gid))
st = call("aria2.tellStatus", gid, ["gid", "status", "totalLength", "completedLength"])
step("tellStatus complete", result=shape(st), status=st["status"], whole=st["totalLength"] == st["completedLength"])

gid2 = call("aria2.addUri", [slow], {})
wait("aria2.onDownloadStart", gid2)
r = call("aria2.pause", gid2)
step("pause", result=shape(r), same=r == gid2, params=wait("aria2.onDownloadPause", gid2))
st = call("aria2.tellStatus", gid2, ["status"])
step("tellStatus paused", status=st["status"])
# The download runs again before it is removed: aria2 keeps the result
# of a download removed while active, and none of one removed while it
# waits its turn (as aria2c 1.36 does), so removing it at once raced the
# daemon's start.
seen = [s for s in seen if s[:2] != ("aria2.onDownloadStart", gid2)]
r = call("aria2.unpause", gid2)
step("unpause", result=shape(r), same=r == gid2, params=wait("aria2.onDownloadStart", gid2))
r = call("aria2.remove", gid2)
step("remove", result=shape(r), same=r == gid2, params=wait("aria2.onDownloadStop", gid2))
st = call("aria2.tellStatus", gid2, ["status"])
step("tellStatus removed", status=st["status"])
r = call("aria2.removeDownloadResult", gid2)
step("removeDownloadResult", result=r)
ws.close()
