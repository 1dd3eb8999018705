#!/usr/bin/env python3
"""Regenerates data/samples/table.pgm: a 640x480 'camera view' of a table with printed amoeba
symbols (from data/amoeba), uneven illumination, slight blur and sensor noise. Needs Pillow and
NumPy (Debian: python3-pil python3-numpy). The README's quick start thresholds this image.

  python3 scripts/make_sample.py            # writes data/samples/table.pgm and table.json
"""
import json
import pathlib
import random

import numpy as np
from PIL import Image, ImageFilter

ROOT = pathlib.Path(__file__).resolve().parent.parent
rng = random.Random(2026)
W, H = 640, 480
yy, xx = np.mgrid[0:H, 0:W]
# Brighter towards the upper left, like a projector hot spot, and dimmer corners.
table = 150 + 60 * np.exp(-(((xx - 200) / 380.0) ** 2 + ((yy - 150) / 300.0) ** 2))
scene = Image.fromarray(np.clip(table, 0, 255).astype(np.uint8))
truth = []
placed = []
for sid in [3, 17, 42, 99, 120, 150, 201, 215]:
    sym = Image.open(ROOT / f"data/amoeba/symbols/amoeba_default_{sid:03d}.png").convert("L")
    size = rng.randint(90, 120)
    angle = rng.uniform(0, 360)
    sym = sym.resize((size, size), Image.LANCZOS).rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255)
    for _ in range(200):
        x = rng.randint(0, W - sym.size[0])
        y = rng.randint(0, H - sym.size[1])
        if all(abs(x - px) > (sym.size[0] + ps) / 2 + 4 or abs(y - py) > (sym.size[1] + ps) / 2 + 4 for px, py, ps in placed):
            break
    placed.append((x, y, sym.size[0]))
    # Printed paper is not pure white: scale to the local table brightness.
    arr = np.asarray(sym).astype(np.float32) / 255.0
    local = table[y:y + sym.size[1], x:x + sym.size[0]]
    arr = 25 + arr * (local + 20 - 25)
    region = np.asarray(scene).astype(np.float32)
    region[y:y + sym.size[1], x:x + sym.size[0]] = np.minimum(region[y:y + sym.size[1], x:x + sym.size[0]], arr)
    scene = Image.fromarray(np.clip(region, 0, 255).astype(np.uint8))
    truth.append({"id": sid, "x": x + sym.size[0] / 2, "y": y + sym.size[1] / 2, "size": size, "rotation_deg": angle})
scene = scene.filter(ImageFilter.GaussianBlur(0.8))
arr = np.asarray(scene).astype(np.float32) + np.random.default_rng(7).normal(0, 3, (H, W))
out = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
out.save(ROOT / "data/samples/table.pgm")
(ROOT / "data/samples/table.json").write_text(json.dumps({"source": "scripts/make_sample.py", "symbols": truth}, indent=1) + "\n")
print("wrote data/samples/table.pgm with", len(truth), "symbols")
