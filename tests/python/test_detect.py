"""Detection and tracking from Python: the same fiducials as `gpuvis detect --json`, a structured
array form, and TUIO bundles sent to a socket."""
import json
import socket

import numpy as np
import pytest

import gpuvis

BACKENDS = ["cpu"] + (["cuda"] if gpuvis.cuda_available() else [])


def test_detector_equals_the_cli(cli, root, table):
    r = cli("detect", root / "data" / "samples" / "table.pgm", "--json", "--backend", "cpu")
    expected = json.loads(r.stdout.splitlines()[0])["fiducials"]
    assert len(expected) > 0
    for backend in BACKENDS:
        d = gpuvis.Detector(backend=backend).detect(table)
        assert (d.width, d.height) == (table.shape[1], table.shape[0])
        got = [f for f in d.fiducials if f.id >= 0]
        assert [f.id for f in got] == [e["id"] for e in expected], backend
        for f, e in zip(got, expected):
            assert abs(f.x - e["x"]) < 1e-3 and abs(f.y - e["y"]) < 1e-3 and abs(f.angle - e["angle"]) < 1e-4
        arr = d.fiducials_array()
        assert arr.dtype.names == ("id", "x", "y", "angle", "root_size")
        assert list(arr["id"][arr["id"] >= 0]) == [e["id"] for e in expected]


def test_max_fid_and_bad_frames(table):
    d = gpuvis.Detector(backend="cpu").detect(table)
    ids = sorted(f.id for f in d.fiducials if f.id >= 0)
    limited = gpuvis.Detector(backend="cpu", max_fid=ids[0]).detect(table)
    assert all(f.id <= ids[0] for f in limited.fiducials)
    try:
        gpuvis.Detector(backend="cpu").detect(np.zeros((10, 10, 3), np.uint8))
    except ValueError as e:
        assert "grey" in str(e)
    else:
        raise AssertionError("a colour frame was accepted")


def test_tracker_keeps_sessions_and_sends_tuio(table):
    if not gpuvis.tuio_available():
        pytest.skip("built without the TUIO adapter (liblo, Boost)")
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.settimeout(5)
    port = receiver.getsockname()[1]
    det = gpuvis.Detector(backend="cpu")
    tracker = gpuvis.Tracker()
    sender = gpuvis.TuioSender([f"udp:127.0.0.1:{port}"], source="pytest")
    sessions = None
    for i in range(3):
        frame = tracker.update(det.detect(table), time=i / 60)
        ids = {(o.session_id, o.symbol_id) for o in frame.objects}
        assert sessions is None or ids == sessions  # the same objects keep their sessions
        sessions = ids
        sender.send(frame)
    assert len(sessions) > 0
    packet = receiver.recv(65536)
    assert packet.startswith(b"#bundle") and b"/tuio/2Dobj" in packet and b"pytest" in packet
    assert sender.packets_sent >= 3


def test_the_example_tracks_a_folder(cli, root, tmp_path):
    import os
    import subprocess
    import sys
    from conftest import symbols_args
    cli("synth", tmp_path / "seq", "--count", "8", "--sequence", "--speed", "4", "--symbols", "3", "--seed", "4", *symbols_args())
    r = subprocess.run([sys.executable, str(root / "examples" / "track_folder.py"), str(tmp_path / "seq"), "--backend", "cpu"],
                       capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    adds = [l for l in r.stdout.splitlines() if " add " in l]
    assert len(adds) == 3, r.stdout  # three symbols, one session each for the whole sequence


def test_yamaarashi_round_trip_on_every_backend(cli, tmp_path):
    """Drawn yamaarashi symbols (gpuvis synth --set yamaarashi) come back with their IDs through
    detection and tracking, the same on every backend."""
    seq = tmp_path / "yamaarashi"
    cli("synth", seq, "--set", "yamaarashi", "--count", "12", "--sequence", "--speed", "6", "--spin", "3", "--symbols", "5",
        "--seed", "9")
    truth = [json.loads(line) for line in (seq / "truth.jsonl").read_text().splitlines()]
    ids = {s["id"] for s in truth[0]["symbols"]}
    assert len(ids) >= 4
    outputs = {}
    for backend in BACKENDS:
        r = cli("track", "--folder", seq, "--yamaarashi", "--json", "--no-tuio", "--backend", backend)
        frames = [json.loads(line) for line in r.stdout.splitlines() if '"fseq"' in line]
        assert len(frames) == 12, backend
        seen = {o["id"] for o in frames[0]["objects"]}
        assert seen == ids, (backend, seen, ids)
        outputs[backend] = frames
        # The Python detector reads the same frames the same way.
        det = gpuvis.Detector(yamaarashi=True, backend=backend)
        found = {f.id for f in det.detect(gpuvis.read_grey(str(seq / "frame_0000.pgm"))).fiducials if f.id >= 0}
        assert found == ids, backend
        assert not [f for f in gpuvis.Detector(backend=backend).detect(gpuvis.read_grey(str(seq / "frame_0000.pgm"))).fiducials
                    if f.id >= 0], "yamaarashi decoded while switched off"
    if "cuda" in outputs:
        for a, b in zip(outputs["cpu"], outputs["cuda"]):
            assert [(o["id"], o["session"]) for o in a["objects"]] == [(o["id"], o["session"]) for o in b["objects"]]
            for oa, ob in zip(a["objects"], b["objects"]):
                assert abs(oa["x"] - ob["x"]) < 1e-5 and abs(oa["y"] - ob["y"]) < 1e-5


def test_smeared_sliding_prints_keep_their_sessions(cli, tmp_path):
    """Prints sliding with smears of about 5 px: the detector's second look, told by the tracker
    where its symbols should be, keeps every print in one session; without it the tracker loses
    some of them."""
    from conftest import symbols_args
    seq = tmp_path / "smeared"
    cli("synth", seq, "--count", "30", "--sequence", "--speed", "6", "--spin", "1", "--motion-blur", "0.8", "--symbols", "6",
        "--min-size", "53", "--max-size", "89", "--seed", "8", *symbols_args())
    truth = [json.loads(line) for line in (seq / "truth.jsonl").read_text().splitlines()]

    def track(second_look):
        detector = gpuvis.Detector(backend="cpu", second_look=second_look)
        tracker = gpuvis.Tracker()
        reported, present, sessions, looks = 0, 0, {}, 0
        for i, t in enumerate(truth):
            detector.expect(tracker.expected_symbols())
            d = detector.detect(gpuvis.read_grey(str(seq / t["file"])))
            looks += sum(1 for l in d.second_looks if l.id >= 0)
            frame = tracker.update(d, time=i / 60)
            for s in t["symbols"]:
                present += 1
                for o in frame.objects:
                    if o.symbol_id == s["id"] and np.hypot(o.x * 640 - s["x"], o.y * 480 - s["y"]) < s["size"] / 3:
                        reported += 1
                        sessions.setdefault(s["id"], set()).add(o.session_id)
                        break
        return reported / present, sessions, looks

    with_look, sessions, looks = track(True)
    without, _, none = track(False)
    assert looks > 0 and none == 0
    assert with_look >= 0.97 and with_look > without, (with_look, without)
    assert all(len(v) == 1 for v in sessions.values()), sessions
    expected = gpuvis.ExpectedSymbol(id=3, x=10.5, y=20.0, root_size=40)
    assert (expected.id, expected.x, expected.root_size) == (3, 10.5, 40)
