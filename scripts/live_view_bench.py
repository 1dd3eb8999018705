#!/usr/bin/env python3
"""Does the live view cost the tracker anything, and does a slow or vanishing browser stall it?

Runs `gpuvis track --folder FRAMES --loop --stats --tuio udp:127.0.0.1:PORT` (TUIO sent to a local
UDP receiver that counts the packets) for SECONDS per condition, and reads the tracker's own
--stats lines (frames per second, latency from a frame's arrival to its TUIO bundle sent, per-stage
times):

  no-view        without --view
  view-idle      --view, no page open
  view-reader    --view, one client reading everything as fast as it arrives
  view-stalled   --view, one client that never reads (its socket fills, the server keeps only the
                 newest picture and state for it)
  view-churn     --view, a client connecting, reading a little and vanishing every 100 ms

Conditions run in turn, --repeats times over (interleaved, so that a slow spell of a shared machine
falls on all of them); each row is one condition's median over its runs.

  python3 scripts/live_view_bench.py --binary build/bin/gpuvis [--seconds 10] [--repeats 3] [--out docs/benchmarks/live_view.jsonl]
"""
import argparse
import json
import platform
import re
import socket
import statistics
import subprocess
import tempfile
import threading
import time

HANDSHAKE = (b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
             b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


class UdpCounter(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.packets = 0
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                self.sock.recv(65536)
                self.packets += 1
            except socket.timeout:
                pass


class Client(threading.Thread):
    """mode: reader (reads everything), stalled (never reads), churn (connects, reads, leaves)."""

    def __init__(self, port, mode):
        super().__init__(daemon=True)
        self.port, self.mode, self.stop, self.bytes, self.connections = port, mode, False, 0, 0

    def connect(self, rcvbuf=None):
        s = socket.socket()
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.connect(("127.0.0.1", self.port))
        s.sendall(HANDSHAKE)
        self.connections += 1
        return s

    def run(self):
        if self.mode == "stalled":
            s = self.connect(rcvbuf=4096)
            while not self.stop:
                time.sleep(0.05)
            s.close()
        elif self.mode == "reader":
            s = self.connect()
            s.settimeout(0.2)
            while not self.stop:
                try:
                    self.bytes += len(s.recv(1 << 20))
                except socket.timeout:
                    pass
            s.close()
        else:
            while not self.stop:
                s = self.connect()
                s.settimeout(0.1)
                try:
                    self.bytes += len(s.recv(1 << 16))
                except socket.timeout:
                    pass
                s.close()
                time.sleep(0.1)


STATS = re.compile(r"gpuvis: (\d+) frames/([\d.]+) s \| per frame \(us\): (.*) \| latency arrival->sent ([\d.]+) \(max ([\d.]+)\)"
                   r" \| dropped (\d+)")


def run(binary, frames, seconds, condition, backend):
    udp = UdpCounter()
    udp.start()
    args = [binary, "track", "--folder", frames, "--loop", "--stats", "--backend", backend, "--tuio", f"udp:127.0.0.1:{udp.port}"]
    if condition != "no-view":
        args += ["--view", "0"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    client = None
    lines = []
    start = time.monotonic()
    for line in proc.stderr:
        if "live view on" in line and condition in ("view-reader", "view-stalled", "view-churn"):
            client = Client(int(re.search(r":(\d+)/", line).group(1)), condition.split("-")[1])
            client.start()
        m = STATS.search(line)
        if m:
            lines.append(m)
        if time.monotonic() - start > seconds:
            break
    proc.send_signal(2)
    proc.communicate(timeout=30)
    if client:
        client.stop = True
        client.join()
    udp.stop = True
    udp.join()
    steady = lines[2:] or lines  # the first two seconds hold start-up and the client joining
    fps = [int(m.group(1)) / float(m.group(2)) for m in steady]
    return {
        "condition": condition, "backend": backend, "seconds": seconds,
        "fps_median": statistics.median(fps), "fps_min": min(fps),
        "latency_us_median": statistics.median(float(m.group(4)) for m in steady),
        "latency_us_max": max(float(m.group(5)) for m in steady),
        "tuio_packets_per_s": udp.packets / seconds,
        "client_bytes_per_s": (client.bytes / seconds) if client else 0,
        "client_connections": client.connections if client else 0,
        "exit_code": proc.returncode,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/bin/gpuvis")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--out")
    ap.add_argument("--machine", default="dev machine (no GPU)")
    a = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([a.binary, "synth", f"{tmp}/frames", "--count", "20", "--sequence", "--seed", "4"], check=True,
                       capture_output=True)
        conditions = ("no-view", "view-idle", "view-reader", "view-stalled", "view-churn")
        runs = {c: [] for c in conditions}
        for _ in range(a.repeats):
            for condition in conditions:
                runs[condition].append(run(a.binary, f"{tmp}/frames", a.seconds, condition, a.backend))
        rows = []
        for condition in conditions:
            row = {"condition": condition, "backend": a.backend, "seconds": a.seconds, "runs": len(runs[condition])}
            for key in ("fps_median", "fps_min", "latency_us_median", "latency_us_max", "tuio_packets_per_s",
                        "client_bytes_per_s", "client_connections"):
                row[key] = statistics.median(r[key] for r in runs[condition])
            row["fps_per_run"] = [r["fps_median"] for r in runs[condition]]
            row["exit_codes"] = [r["exit_code"] for r in runs[condition]]
            row.update({"suite": "live_view", "name": condition, "value": row["fps_median"], "cpu": cpu_name(),
                        "threads": subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip(),
                        "machine": a.machine, "commit": commit})
            rows.append(row)
            print(json.dumps(row), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
