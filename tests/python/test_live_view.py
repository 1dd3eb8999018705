"""`gpuvis track --view`: the live view in a real browser (headless Chromium driven by npm's
puppeteer-core, tests/node/live_view_check.mjs), its server's answers to wrong requests, and the
errors of a bad --view. scripts/deps.sh installs Chromium and tests/node's packages; .ci/run sets
GPUVIS_REQUIRE_BROWSER=1 so that CI fails instead of skipping when they are missing."""
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import time

import pytest

from conftest import ROOT

NODE_DIR = ROOT / "tests" / "node"


def chromium():
    return next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome") if os.path.exists(p)), None)


def start_view(tmp_path, *extra, stdout=subprocess.DEVNULL):
    source = [] if "--folder" in extra else ["--synth", "0"]
    track = subprocess.Popen([os.environ["GPUVIS_CLI"], "track", *source, "--view", "0", "--no-tuio", "--backend", "cpu",
                              *extra], cwd=tmp_path, stdout=stdout, stderr=subprocess.PIPE, text=True)
    line = track.stderr.readline()
    while line and "live view on" not in line:
        line = track.stderr.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not match:
        track.kill()
        pytest.fail(f"no live view address: {line!r}")
    return track, int(match.group(1))


def stop(track):
    track.send_signal(2)
    assert track.wait(timeout=20) == 0


def test_the_page_shows_frames_and_detections_and_its_settings_reach_the_tracker(cli, tmp_path):
    have_browser = shutil.which("node") and chromium() and (NODE_DIR / "node_modules" / "puppeteer-core").is_dir()
    if not have_browser:
        if os.environ.get("GPUVIS_REQUIRE_BROWSER") == "1":
            pytest.fail("node, chromium or tests/node/node_modules/puppeteer-core is missing (run scripts/deps.sh)")
        pytest.skip("node, chromium or tests/node/node_modules (puppeteer-core; scripts/deps.sh) is missing")
    if "live view:      yes" not in cli("info").stdout:
        pytest.skip("this gpuvis is built without the live view")
    shot = tmp_path / "live-view.png"
    r = subprocess.run(["node", NODE_DIR / "live_view_check.mjs", os.environ["GPUVIS_CLI"], tmp_path, shot],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    seen = json.loads(r.stdout)
    assert seen["symbols_on_page"] >= 1
    assert seen["fingers_after_change"] >= 1 and seen["frames_until_fingers"] <= 10  # used from the next frames on
    assert seen["binary_grey_fraction"] <= 0.05
    assert seen["settings_saved"] and seen["frames_after_close"] > 30
    assert shot.stat().st_size > 10000
    # The saved reacTIVision.xml is one gpuvis reads: tracking with it finds fingers from the start.
    r = cli("track", "--config", tmp_path / "reacTIVision.xml", "--synth", "5", "--no-tuio", "--json", "--backend", "cpu")
    assert any(json.loads(line)["cursors"] for line in r.stdout.splitlines())


def test_the_server_answers_only_its_page(cli, tmp_path):
    track, port = start_view(tmp_path, "--fps", "30")
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/")
        page = conn.getresponse()
        assert page.status == 200 and b"gpuvis live view" in page.read()
        conn.request("GET", "/../../etc/passwd")
        missing = conn.getresponse()
        assert missing.status == 404
        missing.read()
        # A WebSocket opened by a page from another site is refused (it could change settings and write files).
        conn.request("GET", "/ws", headers={"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": "http://example.com"})
        assert conn.getresponse().status == 403
        # Listening on this machine only.
        listening = open("/proc/net/tcp").read()
        assert f"0100007F:{port:04X}" in listening
        assert track.poll() is None
    finally:
        stop(track)


def frames_in(proc, seconds):
    start = time.monotonic()
    first = json.loads(proc.stdout.readline())["fseq"]
    while time.monotonic() - start < seconds:
        last = json.loads(proc.stdout.readline())["fseq"]
    return last - first


def test_a_client_that_never_reads_does_not_stall_tracking(cli, tmp_path):
    seq = tmp_path / "seq"
    cli("synth", seq, "--count", "8", "--sequence", "--seed", "3")
    proc, port = start_view(tmp_path, "--folder", seq, "--loop", "--json", stdout=subprocess.PIPE)
    try:
        alone = frames_in(proc, 2)
        stalled = socket.create_connection(("127.0.0.1", port))
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.sendall(b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                        b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        time.sleep(0.5)  # its socket fills within a few pictures, and it never reads
        with_stalled = frames_in(proc, 2)
        stalled.close()
        # Sending pictures to a second client costs time of its own, and CI runs other tests beside this one,
        # so the rate may drop; a writer that blocked on the full socket would drop it to a handful of frames.
        assert alone > 100 and with_stalled > 0.3 * alone, (alone, with_stalled)
        assert proc.poll() is None
    finally:
        proc.send_signal(2)
        proc.wait(timeout=20)


@pytest.mark.parametrize("view,message", [("abc", "the port must be a number"), (":8080", "name an address"),
                                          ("999999", "the port must be a number"), ("example.com:8080", "not an IP address")])
def test_a_bad_view_address_is_one_error_line(cli, view, message):
    r = cli("track", "--synth", "3", "--no-tuio", "--view", view, check=False)
    assert r.returncode != 0 and message in r.stderr and len(r.stderr.strip().splitlines()) <= 2, r.stderr


def test_a_view_port_in_use_is_named(cli, tmp_path):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    r = cli("track", "--synth", "3", "--no-tuio", "--view", str(port), check=False)
    busy.close()
    assert r.returncode != 0 and f"127.0.0.1:{port}" in r.stderr and "in use" in r.stderr, r.stderr
