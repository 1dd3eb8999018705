#!/usr/bin/env python3
"""Track the fiducials of a folder of frames and print TUIO-like events (add / update / remove).

  PYTHONPATH=build/python /usr/bin/python3 examples/track_folder.py FRAMES [--backend cpu|cuda|auto] [--tuio udp:127.0.0.1:3333]

FRAMES holds .pgm frames, sorted by name (e.g. from `gpuvis synth FRAMES --sequence`).
"""
import argparse
import pathlib
import sys

import gpuvis


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("frames", type=pathlib.Path)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--fps", type=float, default=60.0, help="frame rate the frames were taken at")
    ap.add_argument("--tuio", help="also send TUIO 1.1 to this target, e.g. udp:127.0.0.1:3333")
    args = ap.parse_args()
    files = sorted(args.frames.glob("*.pgm"))
    if not files:
        sys.exit(f"no .pgm frames in {args.frames}")
    detector = gpuvis.Detector(backend=args.backend)
    tracker = gpuvis.Tracker()
    sender = gpuvis.TuioSender([args.tuio]) if args.tuio else None
    alive = {}
    for i, path in enumerate(files):
        detector.expect(tracker.expected_symbols())  # the second look also looks where tracked symbols should be
        frame = tracker.update(detector.detect(gpuvis.read_grey(str(path))), time=i / args.fps)
        now = {o.session_id: o for o in frame.objects}
        for s, o in now.items():
            verb = "add   " if s not in alive else "update"
            if s not in alive or (o.x, o.y, o.angle) != alive[s]:
                print(f"{frame.fseq:5d} {verb} object s={s} id={o.symbol_id} x={o.x:.3f} y={o.y:.3f} a={o.angle:.2f}")
        for s in alive.keys() - now.keys():
            print(f"{frame.fseq:5d} remove object s={s}")
        alive = {s: (o.x, o.y, o.angle) for s, o in now.items()}
        if sender:
            sender.send(frame)
    if sender:
        sender.send_empty()


if __name__ == "__main__":
    main()
