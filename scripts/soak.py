#!/usr/bin/env python3
"""Soak test of `gpuvis track`: a generated moving sequence played there and back in a loop for a million frames
or more, with the tracker's resident memory sampled once a second, every TUIO packet received on a
local UDP port (fseq must only increase; an object session that left the alive list never comes
back, and no loop of the sequence opens more object sessions than it has symbols), and the frame
counts checked: every frame the source delivered is tracked. Prints one JSON line (the run's figures and the memory curve) and exits
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


def osc_messages(data):
    """The (address, arguments) of an OSC packet, bundles opened (OSC 1.0: int32, float32, string,
    blob, int64, double, true, false, nil)."""
    def padded(at, n):
        return at + ((n + 3) & ~3)

    def text(at):
        end = data.index(b"\x00", at)
        return data[at:end].decode("latin-1"), padded(at, end - at + 1)

    def walk(at, end):
        if data[at:at + 8] == b"#bundle\x00":
            at += 16  # the tag and the time tag
            while at + 4 <= end:
                (size,) = struct.unpack(">i", data[at:at + 4])
                yield from walk(at + 4, at + 4 + size)
                at += 4 + size
            return
        address, at = text(at)
        tags, at = text(at)
        args = []
        for t in tags[1:]:
            if t in "if":
                args.append(struct.unpack(">" + t, data[at:at + 4])[0])
                at += 4
            elif t in "hd":
                args.append(struct.unpack(">" + ("q" if t == "h" else "d"), data[at:at + 8])[0])
                at += 8
            elif t == "s":
                value, at = text(at)
                args.append(value)
            elif t == "b":
                (size,) = struct.unpack(">i", data[at:at + 4])
                args.append(data[at + 4:at + 4 + size])
                at = padded(at + 4, size)
            else:
                args.append({"T": True, "F": False, "N": None}.get(t))
        yield address, args

    yield from walk(0, len(data))


class TuioReceiver(threading.Thread):
    """Receives the TUIO bundles on a UDP port: fseq only increases per profile (the start-up and
    shutdown bundles carry fseq -1), and object sessions are followed through /tuio/2Dobj's alive
    lists: a session that left the list and comes back is a failure (checked only across bundles
    with consecutive fseq, as UDP may lose one), and every session ID seen is counted."""

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
        self.sessions = set()   # every object session ID seen alive
        self.ended = set()      # sessions seen leaving the alive list (between consecutive bundles)
        self.reappeared = 0
        self.previous_objects = set()  # the last bundle's alive list
        self.stop = False

    def bundle(self, data):
        alive, fseq = {}, {}
        for address, args in osc_messages(data):
            if args and args[0] == "alive":
                alive[address] = args[1:]
            elif args and args[0] == "fseq":
                fseq[address] = args[1]
        for profile, number in fseq.items():
            if number < 0:
                continue
            last = self.last_fseq.get(profile, -1)
            if number <= last:
                self.backwards += 1
            if profile == "/tuio/2Dobj" and profile in alive:
                now = set(alive[profile])
                self.reappeared += len(now & self.ended)
                if number == last + 1:  # nothing lost in between: who left, left
                    self.ended |= self.previous_objects - now
                self.previous_objects = now
                self.sessions |= now
            self.last_fseq[profile] = number

    def run(self):
        while not self.stop:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            self.packets += 1
            self.bundle(data)


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
        # There and back: the 120 frames, then frames 118 to 1 (links), so that the loop never makes
        # the prints jump to other places, which no camera shows (the tracker then searched for
        # each one where it should have been, in every pass).
        frames = sorted(f for f in os.listdir(seq) if f.endswith(".pgm"))
        loop = os.path.join(tmp, "loop")
        os.mkdir(loop)
        for i, name in enumerate(frames + frames[-2:0:-1]):
            os.symlink(os.path.join(seq, name), os.path.join(loop, f"{i:05d}.pgm"))
        receiver = None if args.no_tuio else TuioReceiver()
        cmd = [args.binary, "track", "--folder", loop, "--loop", "--frames", str(args.frames), "--backend", args.backend,
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
        if receiver.reappeared:
            failures.append(f"{receiver.reappeared} object sessions came back after leaving the alive list")
        # Each pass there and back may open one session per symbol (a print that leaves the frame
        # comes back in); more means objects were lost and found again within a pass.
        passes = -(-args.frames // (2 * 120 - 2))  # there and back
        if len(receiver.sessions) > 4 * (passes + 1):
            failures.append(f"{len(receiver.sessions)} object sessions over {passes} passes of 4 symbols")
    step = max(1, len(curve) // 200)  # at most ~200 points of the curve are kept
    result = {
        "benchmark": "soak", "date": time.strftime("%Y-%m-%d"), **hardware(), "backend": args.backend,
        "frame_size": args.size, "frames": args.frames, "seconds": round(seconds, 1),
        "frames_per_second": round((counts[2] if counts else 0) / seconds, 1),  # frames tracked, also when stopped early
        "captured_dropped_tracked": counts,
        "rss_mb_first": curve[0][1] if curve else None, "rss_mb_after_warmup": steady[0] if steady else None,
        "rss_mb_max": max(mb for _, mb in curve) if curve else None, "rss_mb_last": curve[-1][1] if curve else None,
        "tuio_packets": receiver.packets if receiver else None, "last_fseq": receiver.last_fseq if receiver else None,
        "object_sessions": len(receiver.sessions) if receiver else None,
        "sessions_back_after_leaving": receiver.reappeared if receiver else None,
        "failures": failures, "rss_curve": curve[::step],
        "command": " ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(sys.argv)),
    }
    print(json.dumps(result))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
