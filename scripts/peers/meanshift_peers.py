"""OpenCV's CPU mean shift filter on the scenes bench_meanshift saved (--save-frames DIR):
cv2.pyrMeanShiftFiltering(img, sp, sr, maxLevel=0) on all cores, median of runs after a warm-up.
OpenCV's window is a square of radius sp and a colour distance in RGB below sr, it stops after
5 steps or a shift under 1 by default: close to, not the same as, gpuvis's definition.

  python3 scripts/peers/meanshift_peers.py --frames DIR --out meanshift_peers.jsonl
"""
import argparse
import json
import os
import time

from peer_common import stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    import cv2
    cv2.setNumThreads(os.cpu_count())
    cases = [("scene_512x512.ppm", 8, 8), ("scene_640x480.ppm", 8, 16)]
    with open(args.out, "a") as out:
        for name, sp, sr in cases:
            img = cv2.imread(os.path.join(args.frames, name), cv2.IMREAD_COLOR)
            cv2.pyrMeanShiftFiltering(img, sp, sr, maxLevel=0)
            samples = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                cv2.pyrMeanShiftFiltering(img, sp, sr, maxLevel=0)
                samples.append((time.perf_counter() - t0) * 1e6)
            st = stats(samples)
            rec = {"suite": "meanshift", "name": "filter", "backend": "opencv-cpu", "scope": "host",
                   "width": img.shape[1], "height": img.shape[0],
                   "params": {"hs": str(sp), "hr": str(sr), "colour": "rgb", "threads": str(os.cpu_count())}, **st, "cpu": "", "gpu": ""}
            out.write(json.dumps(rec) + "\n")
            print(f"opencv {name} sp={sp} sr={sr}: {st['median_us'] / 1000:.1f} ms")


if __name__ == "__main__":
    main()
