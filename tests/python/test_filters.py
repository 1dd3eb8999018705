"""The filters from Python: equal to the CLI on the same input, to a literal reference, on crops
without copies, and with errors that name the problem."""
import os

import numpy as np
import pytest

import gpuvis
from conftest import read_pgm, write_pgm

BACKENDS = ["cpu"] + (["cuda"] if gpuvis.cuda_available() else [])


def test_threshold_equals_the_cli(cli, table, tmp_path):
    out = tmp_path / "binary.pgm"
    write_pgm(tmp_path / "in.pgm", table)
    cli("threshold", tmp_path / "in.pgm", out, "--backend", "cpu")
    expected = read_pgm(out)
    for backend in BACKENDS:
        assert np.array_equal(gpuvis.threshold(table, backend=backend), expected), backend
    tiled = gpuvis.threshold(table, method="tiled", tile=16, gate=16, backend="cpu")
    cli("threshold", tmp_path / "in.pgm", tmp_path / "tiled.pgm", "--method", "tiled", "--tile", "16", "--gate", "16",
        "--backend", "cpu")
    assert np.array_equal(tiled, read_pgm(tmp_path / "tiled.pgm"))


def test_opencl_thresholds_filters_and_life_equal_the_cpu_and_the_detector_refuses_it(table):
    if not gpuvis.opencl_devices():
        if os.environ.get("GPUVIS_REQUIRE_OPENCL") == "1":
            pytest.fail("GPUVIS_REQUIRE_OPENCL=1 but there is no OpenCL device (scripts/deps.sh installs PoCL)")
        pytest.skip("no OpenCL device")
    for window, gate in [(16, 32), (3, 0), (40, 255)]:
        assert np.array_equal(gpuvis.threshold(table, window=window, gate=gate, backend="opencl"),
                              gpuvis.threshold(table, window=window, gate=gate, backend="cpu")), (window, gate)
    for method, kw in [("tiled", dict(tile=16, gate=16)), ("tiled", dict(tile=7, gate=0)),
                       ("bradley-roth", dict(window=16, bias=0.16, contrast=32)), ("bradley-roth", dict(window=40, bias=0.3, contrast=10))]:
        assert np.array_equal(gpuvis.threshold(table, method=method, backend="opencl", **kw),
                              gpuvis.threshold(table, method=method, backend="cpu", **kw)), (method, kw)
    assert np.array_equal(gpuvis.convolve(table, "gaussian:sigma=2", backend="opencl"),  # fixed point: the same bytes
                          gpuvis.convolve(table, "gaussian:sigma=2", backend="cpu"))
    assert np.abs(gpuvis.convolve(table, "gaussian:sigma=2", backend="opencl", fixed_point=False).astype(int)
                  - gpuvis.convolve(table, "gaussian:sigma=2", backend="cpu", fixed_point=False).astype(int)).max() <= 1
    soup = (np.random.default_rng(3).random((77, 130)) < 0.4).astype(np.uint8)
    for rule, border in [("B3/S23", "torus"), ("B36/S23", "dead")]:
        assert np.array_equal(gpuvis.life(soup, 25, rule=rule, border=border, backend="opencl"),
                              gpuvis.life(soup, 25, rule=rule, border=border, backend="cpu")), (rule, border)
    rgb = np.dstack([table, np.roll(table, 7, axis=1), 255 - table])
    for img, kw in [(table, dict(radius=3)), (rgb, dict(radius=5, adaptive=True)), (rgb, dict(radius=2, per_channel=True))]:
        assert np.array_equal(gpuvis.bilateral(img, backend="opencl", **kw), gpuvis.bilateral(img, backend="cpu", **kw)), kw
    small = np.ascontiguousarray(rgb[::4, ::4])
    assert np.array_equal(gpuvis.mean_shift(small, spatial=4, range=10, backend="opencl"),
                          gpuvis.mean_shift(small, spatial=4, range=10, backend="cpu"))
    with pytest.raises(RuntimeError, match='not on the OpenCL backend yet.*backend="cpu"'):
        gpuvis.Detector(backend="opencl")


def test_convolve_equals_a_literal_reference_and_the_cli(cli, table, tmp_path):
    img = table.astype(np.float32)
    k = np.array([[1, 2, 1], [0, 0, 0], [-1, -2, -1]], np.float32)  # not separable into equal halves
    ours = gpuvis.convolve(img, k, border="replicate", backend="cpu")
    padded = np.pad(img, 1, mode="edge")
    ref = sum(k[dy, dx] * padded[dy:dy + img.shape[0], dx:dx + img.shape[1]] for dy in range(3) for dx in range(3))
    assert np.allclose(ours, ref, atol=1e-3)
    write_pgm(tmp_path / "in.pgm", table)
    cli("filter", "convolve", tmp_path / "in.pgm", tmp_path / "g.pgm", "--kernel", "gaussian:sigma=2", "--backend", "cpu")
    for backend in BACKENDS:
        assert np.array_equal(gpuvis.convolve(table, "gaussian:sigma=2", backend=backend), read_pgm(tmp_path / "g.pgm"))


def test_8_bit_smoothing_in_fixed_point_is_within_one_grey_level_of_float_sums(cli, table, tmp_path):
    rgb = np.dstack([table, np.roll(table, 7, axis=1), 255 - table])
    for kernel in ["gaussian:sigma=2", "box:5", "gaussian:sigma=0.8"]:
        fixed = gpuvis.convolve(rgb, kernel, backend="cpu")
        floats = gpuvis.convolve(rgb, kernel, backend="cpu", fixed_point=False)
        assert np.abs(fixed.astype(int) - floats.astype(int)).max() <= 1, kernel
        assert np.mean(fixed != floats) < 0.1, kernel
    write_pgm(tmp_path / "in.pgm", table)
    cli("filter", "convolve", tmp_path / "in.pgm", tmp_path / "f.pgm", "--kernel", "gaussian:sigma=2", "--float-sums", "--backend", "cpu")
    assert np.array_equal(read_pgm(tmp_path / "f.pgm"), gpuvis.convolve(table, "gaussian:sigma=2", backend="cpu", fixed_point=False))


def test_auto_times_both_backends_then_runs_the_faster(table):
    # backend="auto" on host arrays: the first call of a kind warms the GPU up, the next four time the
    # GPU and the CPU in turn, later calls run on the faster (docs/filters.md); the bytes are the
    # CPU's either way (8-bit fixed point).
    expected = gpuvis.convolve(table, "gaussian:sigma=2", backend="cpu")
    before = {c["call"] for c in gpuvis.auto_choices()}
    for _ in range(6):
        assert np.array_equal(gpuvis.convolve(table, "gaussian:sigma=2"), expected)
    learnt = [c for c in gpuvis.auto_choices() if c["call"] not in before]
    if gpuvis.resolve_backend("auto") == "cpu":
        assert learnt == []  # nothing to choose between
        return
    assert len(learnt) == 1 and learnt[0]["calls"] == 6, learnt
    c = learnt[0]
    assert c["gpu_us"] > 0 and c["cpu_us"] > 0
    assert c["chosen"] == ("cpu" if c["cpu_us"] < c["gpu_us"] else c["gpu"])


def test_colour_and_every_type(table):
    rgb = np.stack([table, 255 - table, table // 2], axis=2)
    for arr in (rgb, rgb.astype(np.uint16) * 200, rgb.astype(np.float32) / 255):
        out = gpuvis.convolve(arr, "box:3", backend="cpu")
        assert out.shape == arr.shape and out.dtype == arr.dtype
        per_channel = np.stack([gpuvis.convolve(np.ascontiguousarray(arr[:, :, c]), "box:3", backend="cpu") for c in range(3)], 2)
        assert np.array_equal(out, per_channel)
    b = gpuvis.bilateral(rgb, radius=3, sigma_space=3, sigma_range=30, backend="cpu")
    assert b.shape == rgb.shape and np.abs(b.astype(int) - rgb).mean() < 20


def test_crops_are_read_in_place_and_equal_a_copy(table):
    crop = table[40:300, 25:410]  # rows are strided: viewed, not copied
    assert not crop.flags.c_contiguous
    assert np.array_equal(gpuvis.convolve(crop, "gaussian:sigma=1.5", backend="cpu"),
                          gpuvis.convolve(np.ascontiguousarray(crop), "gaussian:sigma=1.5", backend="cpu"))
    assert np.array_equal(gpuvis.threshold(crop, backend="cpu"), gpuvis.threshold(np.ascontiguousarray(crop), backend="cpu"))


def test_mean_shift_flattens_noise_and_keeps_the_edge():
    rng = np.random.default_rng(3)
    img = np.where(np.arange(64)[None, :] < 32, 60, 190).astype(np.float64) * np.ones((48, 1))
    noisy = np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)
    out = gpuvis.mean_shift(noisy, spatial=6, range=24, backend="cpu")
    assert out[:, :28].std() < noisy[:, :28].std() / 3
    assert abs(int(out[:, 36:].mean()) - 190) < 4 and abs(int(out[:, :28].mean()) - 60) < 4


def test_mean_shift_segment_equals_the_cli(cli, tmp_path):
    rng = np.random.default_rng(5)
    img = np.zeros((48, 64), np.uint8)
    for q, level in enumerate((40, 100, 160, 220)):
        img[(q // 2) * 24:(q // 2) * 24 + 24, (q % 2) * 32:(q % 2) * 32 + 32] = level
    img = np.clip(img + rng.normal(0, 5, img.shape), 0, 255).astype(np.uint8)
    labels, filtered, regions = gpuvis.mean_shift_segment(img, spatial=5, range=24, backend="cpu")
    assert labels.dtype == np.int32 and labels.shape == img.shape and filtered.shape == img.shape
    assert [r["label"] for r in regions] == [0, 1, 2, 3] and sum(r["size"] for r in regions) == img.size
    write_pgm(tmp_path / "q.pgm", img)
    cli("segment", "meanshift", tmp_path / "q.pgm", tmp_path / "labels.pgm", "--spatial", "5", "--range", "24",
        "--regions", tmp_path / "regions.json", "--backend", "cpu")
    import json
    table = json.loads((tmp_path / "regions.json").read_text())
    assert [(r["label"], r["size"]) for r in table] == [(r["label"], r["size"]) for r in regions]
    # Smoothed first: the CLI's --smooth is the module's smooth, which is the CPU's Gaussian first.
    labels, _, regions = gpuvis.mean_shift_segment(img, spatial=5, range=24, backend="cpu", smooth=0.7)
    cli("segment", "meanshift", tmp_path / "q.pgm", tmp_path / "smoothed.pgm", "--spatial", "5", "--range", "24", "--smooth", "0.7",
        "--regions", tmp_path / "smoothed.json", "--backend", "cpu")
    table = json.loads((tmp_path / "smoothed.json").read_text())
    assert [(r["label"], r["size"]) for r in table] == [(r["label"], r["size"]) for r in regions]
    by_hand, _, _ = gpuvis.mean_shift_segment(gpuvis.convolve(img, f"gaussian:sigma={float(np.float32(0.7))!r}", backend="cpu"),
                                              spatial=5, range=24, backend="cpu")
    assert np.array_equal(labels, by_hand)
    with pytest.raises(ValueError, match="smooth"):
        gpuvis.mean_shift_segment(img[None], volume=True, smooth=0.7)


def test_mean_shift_takes_16_bit_float_and_volumes():
    rng = np.random.default_rng(7)
    img = np.where(np.arange(40)[None, :] < 20, 60, 190).astype(np.float64) * np.ones((30, 1))
    noisy = np.clip(img + rng.normal(0, 6, img.shape), 0, 255)
    out8 = gpuvis.mean_shift(noisy.astype(np.uint8), spatial=4, range=24, backend="cpu")
    out16 = gpuvis.mean_shift((noisy * 257).astype(np.uint16), spatial=4, range=24.3 * 257, backend="cpu")
    outf = gpuvis.mean_shift((noisy / 255).astype(np.float32), spatial=4, range=24.3 / 255, backend="cpu")
    assert out16.dtype == np.uint16 and outf.dtype == np.float32
    assert np.abs(out16 / 257.0 - out8).max() <= 2 and np.abs(outf * 255 - out8).max() <= 2
    # A volume (Z, H, W): a ball in noise is two regions; the labels keep the volume's shape.
    z, y, x = np.mgrid[0:10, 0:16, 0:16]
    ball = ((z - 4.5) ** 2 + (y - 7.5) ** 2 + (x - 7.5) ** 2 < 16).astype(np.float64)
    vol = np.clip(60 + 140 * ball + rng.normal(0, 8, ball.shape), 0, 255).astype(np.uint8)
    filtered = gpuvis.mean_shift_volume(vol, spatial=3, range=40, backend="cpu")
    assert filtered.shape == vol.shape and np.abs(filtered.astype(int) - (60 + 140 * ball)).mean() < 3
    labels, _, regions = gpuvis.mean_shift_segment(vol, spatial=3, range=40, volume=True, backend="cpu")
    assert labels.shape == vol.shape and len(regions) == 2 and len(regions[0]["centroid"]) == 3


def test_life_moves_a_glider():
    board = np.zeros((16, 16), np.uint8)
    board[1, 2] = board[2, 3] = board[3, 1] = board[3, 2] = board[3, 3] = 1
    for backend in BACKENDS:
        after = gpuvis.life(board, 4, backend=backend)
        assert np.array_equal(after, np.roll(np.roll(board, 1, 0), 1, 1)), backend


def test_life_generations_rules_return_each_cells_state():
    """Brian's Brain (B2/S/C3): a live cell is dying (2) the next generation and dead (0) the one
    after; every backend gives the same states."""
    soup = (np.random.default_rng(5).random((40, 60)) < 0.3).astype(np.uint8)
    before = gpuvis.life(soup, 6, rule="B2/S/C3", backend="cpu")
    after = gpuvis.life(soup, 7, rule="B2/S/C3", backend="cpu")
    assert set(np.unique(before)) <= {0, 1, 2} and (before == 2).any()
    assert (after[before == 1] == 2).all() and (after[before == 2] == 0).all()
    for backend in BACKENDS:
        assert np.array_equal(gpuvis.life(soup, 7, rule="brianbrain", backend=backend), after), backend
    with pytest.raises(ValueError, match="2 to 256 states"):
        gpuvis.life(soup, 1, rule="B2/S/C1")


def test_errors_say_what_to_fix(table):
    with pytest.raises(TypeError, match="uint8"):
        gpuvis.threshold(table.astype(np.float32))
    with pytest.raises(ValueError, match="2D"):
        gpuvis.convolve(np.zeros((2, 3, 4, 5), np.float32), "box:3")
    with pytest.raises(ValueError, match="contiguous"):
        gpuvis.convolve(table.T, "box:3")
    with pytest.raises(ValueError, match="window"):
        gpuvis.threshold(table, window=0)
    with pytest.raises(ValueError, match="backend"):
        gpuvis.threshold(table, backend="tpu")
    with pytest.raises(ValueError, match="kernel"):
        gpuvis.convolve(table, "no-such-kernel")
    # Advice names the keyword arguments, not the command line's flags.
    with pytest.raises(ValueError, match=r"mean shift max_iter must") as bad:
        gpuvis.mean_shift(table, max_iter=0)
    assert "--" not in str(bad.value)
    if not gpuvis.cuda_available():
        with pytest.raises(gpuvis.Error, match='backend="cpu"') as bad:
            gpuvis.threshold(table, backend="cuda")
        assert "--" not in str(bad.value)
