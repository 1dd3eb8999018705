"""TUIO 1.1 and 2.0 seen by a real third-party client: npm's tuio-client (TUIO 1.1 and 2.0 over
WebSocket, with osc-js), run by Node against `gpuvis track --tuio web:PORT@VERSION`. The client must
see every symbol added with its ID, positions where the generator put the symbols, and every
session removed at shutdown. Needs node and tests/node's packages (scripts/deps.sh installs them)."""
import json
import os
import random
import shutil
import subprocess
import time

import pytest

from conftest import ROOT

NODE_DIR = ROOT / "tests" / "node"


def truth_frames(seq):
    frames = []
    for line in (seq / "truth.jsonl").read_text().splitlines():
        frames.append({s["id"]: (s["x"], s["y"]) for s in json.loads(line)["symbols"]})
    return frames


@pytest.mark.parametrize("version", ["1.1", "2"])
def test_a_third_party_client_sees_every_symbol(cli, tmp_path, version):
    if not shutil.which("node") or not (NODE_DIR / "node_modules" / "tuio-client").is_dir():
        pytest.skip("node or tests/node/node_modules (npm's tuio-client; scripts/deps.sh) is missing")
    seq = tmp_path / "seq"
    cli("synth", seq, "--count", "45", "--sequence", "--speed", "3", "--spin", "1", "--symbols", "4", "--seed", "6",
        "--min-size", "70")
    truth = truth_frames(seq)
    port = 20000 + random.randrange(20000)
    track = subprocess.Popen([os.environ["GPUVIS_CLI"], "track", "--folder", seq, "--fps", "15", "--tuio", f"web:{port}@{version}",
                              "--backend", "cpu"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(0.4)  # the server is listening; the client joins a few frames in
    client = subprocess.run(["node", NODE_DIR / "tuio_client_check.mjs", version, str(port), "4.5"], capture_output=True,
                            text=True, timeout=60)
    track.wait(timeout=30)
    assert track.returncode == 0, track.stderr
    assert client.returncode == 0, client.stderr
    seen = json.loads(client.stdout)
    if version == "2":
        adds = [a for a in seen["adds"] if a["token"]]
        added = {a["token"]["id"]: a["session"] for a in adds}
        for a in adds:  # the symbol component names the set and carries the ID
            assert a["symbol"] == {"type": "fidtrk/18", "data": str(a["token"]["id"])}
    else:
        adds = [a for a in seen["adds"] if a["kind"] == "object"]
        added = {a["id"]: a["session"] for a in adds}
    ids_late = set(truth[-1])
    assert ids_late and ids_late <= set(added), (added, ids_late)  # every symbol still in view was added
    assert set(added) <= set().union(*truth)  # and no ID that is not on the table
    assert len(adds) == len(added), "one session per symbol"
    # Every position the client was updated to is where the generator put that symbol in some
    # frame (within 1.5 px): the IDs, sessions and coordinates arrive intact.
    updates = 0
    for session, path in seen["paths"].items():
        for sid, x, y in path:
            assert added[sid] == int(session), (sid, session)
            d = min(abs(x * 640 - f[sid][0]) + abs(y * 480 - f[sid][1]) for f in truth if sid in f)
            assert d < 1.5, (sid, x * 640, y * 480, d)
            updates += 1
    assert updates > 20 * len(ids_late)
    assert set(added.values()) <= set(seen["removes"]), "every session removed at shutdown"


def test_tuio2_pointers_and_bounds_reach_a_third_party_client(cli, tmp_path):
    """Fingers arrive as TUIO 2.0 pointers where the generator put them, and with --object-blobs and
    --finger-blobs every symbol and finger also carries bounds (/tuio2/bnd) at its own place."""
    if not shutil.which("node") or not (NODE_DIR / "node_modules" / "tuio-client").is_dir():
        pytest.skip("node or tests/node/node_modules (npm's tuio-client; scripts/deps.sh) is missing")
    seq = tmp_path / "seq"
    cli("synth", seq, "--count", "45", "--sequence", "--speed", "2", "--symbols", "3", "--fingers", "2", "--seed", "11",
        "--min-size", "70")
    fingers = [[(f["x"], f["y"]) for f in json.loads(line)["fingers"]] for line in (seq / "truth.jsonl").read_text().splitlines()]
    symbols = truth_frames(seq)
    port = 20000 + random.randrange(20000)
    track = subprocess.Popen([os.environ["GPUVIS_CLI"], "track", "--folder", seq, "--fps", "15", "--tuio", f"web:{port}@2",
                              "--finger-size", "18", "--object-blobs", "--finger-blobs", "--backend", "cpu"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(0.4)
    client = subprocess.run(["node", NODE_DIR / "tuio_client_check.mjs", "2", str(port), "4.5"], capture_output=True,
                            text=True, timeout=60)
    track.wait(timeout=30)
    assert track.returncode == 0, track.stderr
    assert client.returncode == 0, client.stderr
    seen = json.loads(client.stdout)
    near = lambda p, places: min(abs(p["x"] * 640 - x) + abs(p["y"] * 480 - y) for x, y in places)  # noqa: E731
    everywhere_fingers = [p for f in fingers for p in f]
    everywhere_symbols = [p for f in symbols for p in f.values()]
    pointers = [o for o in list(seen["last"].values()) + seen["adds"] if o["pointer"]]
    assert len({o["session"] for o in pointers}) >= 2, seen["adds"]  # both fingers
    for o in pointers:
        assert near(o["pointer"], everywhere_fingers) < 3, o
        assert o["bounds"] is None or near(o["bounds"], everywhere_fingers) < 3, o
    tokens = [o for o in seen["last"].values() if o["token"]]
    assert tokens and all(o["bounds"] for o in tokens), tokens  # object blobs give each token its bounds
    for o in tokens:  # the root region's box centre, a few pixels from the symbol's centre (the leaves')
        assert near(o["token"], everywhere_symbols) < 1.5, o
        assert abs(o["bounds"]["x"] - o["token"]["x"]) * 640 + abs(o["bounds"]["y"] - o["token"]["y"]) * 480 < 8, o
