#!/usr/bin/env python3
"""Soak test of `gpuvis track`: a generated moving sequence played in a loop for a million frames
or more, with the tracker's resident memory sampled once a second, every TUIO packet received on a
local UDP port (fseq must only increase), and the frame counts checked: every frame the source
delivered is tracked. Prints one JSON line (the run's figures and the memory curve) and exits
non-zero when a check fails.

  python3 scripts/soak.py --binary build/bin/gpuvis [--frames 1000000] [--backend cpu]
      [--size 320x240] [--symbols-dir DIR] [--no-tuio] >> docs/benchmarks/soak.jsonl

--no-tuio (builds without the TUIO adapter) checks the frame counts and memory only.
"""
import argparse
import json
import os
import platform
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time


def hardware():
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    gpu = None
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=10).stdout.strip().splitlines()[0] or None
    except (OSError, IndexError, subprocess.SubprocessError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "gpu": gpu}


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


class TuioReceiver(threading.Thread):
    """Counts the TUIO bundles arriving on a UDP port and checks that fseq only increases (the
    start-up and shutdown bundles carry fseq -1)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.packets = 0
        self.last_fseq = {}  # profile (/tuio/2Dobj, ...) -> its last fseq
        self.backwards = 0
        self.stop = False

    def run(self):
        marker = b"fseq\x00\x00\x00\x00"
        while not self.stop:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            self.packets += 1
            # Each profile's bundle ends with its fseq message: address, ",si", "fseq", the number.
            at = data.find(marker)
            while at >= 0:
                (fseq,) = struct.unpack(">i", data[at + len(marker): at + len(marker) + 4])
                profile = data[max(0, at - 16): at - 4].split(b"\x00")[0]
                if fseq >= 0:
                    if fseq <= self.last_fseq.get(profile, -1):
                        self.backwards += 1
                    self.last_fseq[profile] = fseq
                at = data.find(marker, at + 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default="build/bin/gpuvis")
    ap.add_argument("--frames", type=int, default=1_000_000)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--size", default="320x240")
    ap.add_argument("--symbols-dir", default=None)
    ap.add_argument("--no-tuio", action="store_true")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        seq = os.path.join(tmp, "seq")
        synth = [args.binary, "synth", seq, "--count", "120", "--sequence", "--speed", "2", "--spin", "2", "--symbols", "4",
                 "--size", args.size, "--min-size", "50", "--max-size", "80", "--fingers", "2", "--seed", "3"]
        if args.symbols_dir:
            synth += ["--symbols-dir", args.symbols_dir]
        subprocess.run(synth, check=True, capture_output=True)
        receiver = None if args.no_tuio else TuioReceiver()
        cmd = [args.binary, "track", "--folder", seq, "--loop", "--frames", str(args.frames), "--backend", args.backend,
               "--stats", "--finger-size", "14"]
        cmd += ["--no-tuio"] if receiver is None else ["--tuio", f"udp:127.0.0.1:{receiver.port}"]
        if receiver:
            receiver.start()
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        stderr_lines = []
        reader = threading.Thread(target=lambda: stderr_lines.extend(proc.stderr), daemon=True)
        reader.start()
        curve = []  # (seconds, MB)
        while proc.poll() is None:
            mb = rss_mb(proc.pid)
            if mb is not None:
                curve.append((round(time.monotonic() - t0, 1), round(mb, 2)))
            time.sleep(1.0)
        seconds = time.monotonic() - t0
        reader.join(timeout=5)
        if receiver:
            time.sleep(0.5)
            receiver.stop = True
            receiver.join(timeout=2)

    counts = None
    for line in stderr_lines:
        m = re.search(r"(\d+) frames captured, (\d+) dropped, (\d+) tracked", line)
        if m:
            counts = tuple(int(v) for v in m.groups())
    failures = []
    if proc.returncode != 0:
        failures.append(f"gpuvis track exited with {proc.returncode}: {''.join(stderr_lines[-3:]).strip()}")
    if counts is None:
        failures.append("no frame counts in the output")
    else:
        captured, dropped, tracked = counts
        if tracked != args.frames:
            failures.append(f"{tracked} frames tracked of {args.frames}")
        if dropped:
            failures.append(f"{dropped} frames dropped")
    # Memory: the first minute warms up (buffers grow to the frames' sizes); after it, the resident
    # size must stay flat: growth over the rest of the run under 5 % and under 20 MB.
    steady = [mb for t, mb in curve if t >= min(60.0, seconds / 4)]
    growth = (max(steady) - steady[0]) if len(steady) > 1 else 0.0
    if steady and (growth > 20 or growth > 0.05 * steady[0]):
        failures.append(f"resident memory grew by {growth:.1f} MB after warm-up")
    if receiver:
        if receiver.backwards:
            failures.append(f"fseq went backwards {receiver.backwards} times")
        # UDP may lose packets at a busy receiver: fseq must never go backwards, but the last
        # bundles need not all arrive (reported, not a failure).
        if not receiver.last_fseq:
            failures.append("no TUIO bundle arrived")
    step = max(1, len(curve) // 200)  # at most ~200 points of the curve are kept
    result = {
        "benchmark": "soak", "date": time.strftime("%Y-%m-%d"), **hardware(), "backend": args.backend,
        "frame_size": args.size, "frames": args.frames, "seconds": round(seconds, 1),
        "frames_per_second": round(args.frames / seconds, 1),
        "captured_dropped_tracked": counts,
        "rss_mb_first": curve[0][1] if curve else None, "rss_mb_after_warmup": steady[0] if steady else None,
        "rss_mb_max": max(mb for _, mb in curve) if curve else None, "rss_mb_last": curve[-1][1] if curve else None,
        "tuio_packets": receiver.packets if receiver else None, "last_fseq": {p.decode(): v for p, v in receiver.last_fseq.items()} if receiver else None,
        "failures": failures, "rss_curve": curve[::step],
        "command": " ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(sys.argv)),
    }
    print(json.dumps(result))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
