"""gpuvis.dask: chunked filters equal one call on the whole array, and batch detection on a local
distributed cluster (worker processes on loopback) loses and repeats no frame, even when a worker
is killed mid-run."""
import os
import signal
import threading

import numpy as np
import pytest

import gpuvis

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
import gpuvis.dask as gd  # noqa: E402


@pytest.fixture(scope="module")
def image():
    rng = np.random.default_rng(7)
    base = rng.random((300, 420)).astype(np.float32) * 255
    return gpuvis.convolve(base, "gaussian:sigma=3", backend="cpu")  # some structure, not only noise


@pytest.mark.parametrize("border", ["reflect101", "replicate", "constant:7", "wrap"])
def test_chunked_convolution_equals_one_call(image, border):
    arr = da.from_array(image, chunks=(70, 110))
    for kernel in ("gaussian:sigma=2.5", np.arange(25, dtype=np.float32).reshape(5, 5) / 300):
        chunked = gd.convolve(arr, kernel, border=border, backend="cpu").compute(scheduler="threads")
        whole = gpuvis.convolve(image, kernel, border=border, backend="cpu")
        assert np.array_equal(chunked, whole), (border, kernel if isinstance(kernel, str) else "array")


def test_chunked_bilateral_and_colour_equal_one_call(image):
    rgb = np.stack([image, 255 - image, image / 2], axis=2).astype(np.uint8)
    arr = da.from_array(rgb, chunks=(64, 100, 1))  # channels split across chunks: regrouped
    chunked = gd.bilateral(arr, radius=4, sigma_space=3, sigma_range=25, backend="cpu").compute(scheduler="threads")
    assert np.array_equal(chunked, gpuvis.bilateral(rgb, radius=4, sigma_space=3, sigma_range=25, backend="cpu"))
    chunked = gd.convolve(arr, "box:7", backend="cpu").compute(scheduler="threads")
    assert np.array_equal(chunked, gpuvis.convolve(rgb, "box:7", backend="cpu"))


def test_chunked_mean_shift_equals_one_call(image):
    """The default halo (spatial x max_iter) makes every chunk compute what the whole image does, for
    grey and colour images; chunks smaller than the halo are merged first."""
    rgb = np.stack([image, 255 - image, image / 2], axis=2).astype(np.uint8)
    grey = image.astype(np.uint8)
    for img, chunks in ((grey, (70, 90)), (rgb, (64, 100, 3)), (grey, (20, 30))):
        arr = da.from_array(img, chunks=chunks)
        chunked = gd.mean_shift(arr, spatial=3, range=12, max_iter=12, backend="cpu").compute(scheduler="threads")
        whole = gpuvis.mean_shift(img, spatial=3, range=12, max_iter=12, backend="cpu")
        assert np.array_equal(chunked, whole), (img.shape, chunks)
    # The default bandwidth and iteration cap reach further than this array: one chunk along each axis.
    arr = da.from_array(grey[:120, :90], chunks=(40, 45))
    assert np.array_equal(gd.mean_shift(arr, backend="cpu").compute(scheduler="threads"), gpuvis.mean_shift(grey[:120, :90], backend="cpu"))
    # With a halo shorter than the climbs travel, the result is allowed to differ (and here does).
    arr = da.from_array(grey, chunks=(70, 90))
    short = gd.mean_shift(arr, spatial=3, range=40, max_iter=60, halo=2, backend="cpu").compute(scheduler="threads")
    assert not np.array_equal(short, gpuvis.mean_shift(grey, spatial=3, range=40, max_iter=60, backend="cpu"))


@pytest.fixture(scope="module")
def frames(cli, root, tmp_path_factory):
    folder = tmp_path_factory.mktemp("frames")
    from conftest import symbols_args
    cli("synth", folder, "--count", "24", "--seed", "11", "--symbols", "4", "--overwrite", *symbols_args())
    return sorted(str(p) for p in folder.glob("frame_*.pgm"))


def expected_records(frames):
    det = gpuvis.Detector(backend="cpu")
    return {p: [(f.id, f.x, f.y, f.angle) for f in det.detect(gpuvis.read_grey(p)).fiducials if f.id >= 0] for p in frames}


def test_batch_detection_and_filters_on_a_local_cluster(frames, image):
    expected = expected_records(frames)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        chunked = gd.convolve(da.from_array(image, chunks=(100, 140)), "gaussian:sigma=2", backend="cpu").compute()
        assert np.array_equal(chunked, gpuvis.convolve(image, "gaussian:sigma=2", backend="cpu"))
        records = gd.detect_files(frames, partition_size=3, backend="cpu").compute()
        workers = {w for w in client.has_what().keys()}
    assert len(workers) == 2
    assert sorted(r["file"] for r in records) == frames  # each frame once
    for r in records:
        assert r["fiducials"] == expected[r["file"]]


def gpu_and_plain_workers(plain=True):
    """A cluster of worker processes as `dask worker --resources GPU=1` and a plain `dask worker`
    start them: one named "gpu" holding the GPU resource, and (with plain) one without."""
    workers = {"gpu": {"cls": distributed.Nanny, "options": {"nthreads": 1, "resources": {"GPU": 1}}}}
    if plain:
        workers["plain"] = {"cls": distributed.Nanny, "options": {"nthreads": 1}}
    return distributed.SpecCluster(workers=workers, scheduler={"cls": distributed.Scheduler, "options": {"dashboard_address": None}})


def gpu_worker_address(client):
    return next(a for a, w in client.scheduler_info()["workers"].items() if w.get("resources", {}).get("GPU"))


def test_batch_detection_needing_a_gpu_resource_runs_only_on_gpu_workers(frames):
    """compute(resources={"GPU": 1}), as the module docstring tells: every task runs on the worker that
    holds the resource (a GPU worker, as `dask worker --resources GPU=1` starts one), none on the
    other; the records are those of one Detector. CPU backend here, so that it runs without a GPU;
    where the tasks run is what is tested."""
    expected = expected_records(frames)
    with gpu_and_plain_workers() as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(2)
        with distributed.get_task_stream(client) as stream:
            records = gd.detect_files(frames, partition_size=3, backend="cpu").compute(resources={"GPU": 1})
        ran_on = {t["worker"] for t in stream.data if "detect" in str(t["key"])}  # keys: str, or tuples in newer Dask
        gpu_address = gpu_worker_address(client)
    assert ran_on == {gpu_address}, ran_on
    assert sorted(r["file"] for r in records) == frames
    for r in records:
        assert r["fiducials"] == expected[r["file"]]


@pytest.mark.skipif(not gpuvis.cuda_available(), reason="no CUDA device")
def test_gpu_workers_run_cuda_tasks_that_equal_the_cpu(frames, image):
    """On a GPU machine, as a user scales out: a worker started with the GPU resource, one task at a
    time, runs batch detection and chunked filters with backend="cuda"; records and pixels equal the
    CPU backend's one call (the filters: CUDA's one call)."""
    expected = expected_records(frames)
    grey = image.astype(np.uint8)
    with gpu_and_plain_workers(plain=False) as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(1)
        records = gd.detect_files(frames, partition_size=4, backend="cuda").compute(resources={"GPU": 1})
        shifted = gd.mean_shift(da.from_array(grey, chunks=(150, 210)), spatial=3, range=12, max_iter=12,
                                backend="cuda").compute(resources={"GPU": 1})
        blurred = gd.convolve(da.from_array(image, chunks=(100, 140)), "gaussian:sigma=2",
                              backend="cuda").compute(resources={"GPU": 1})
    assert sorted(r["file"] for r in records) == frames
    for r in records:
        # IDs and centres exactly, as the C++ tests compare the backends; angles to 1e-12 rad (the
        # two backends' angle arithmetic may differ in the last bit).
        got, want = r["fiducials"], expected[r["file"]]
        assert [f[:3] for f in got] == [f[:3] for f in want], r["file"]
        assert np.allclose([f[3] for f in got], [f[3] for f in want], rtol=0, atol=1e-12), r["file"]
    assert np.array_equal(shifted, gpuvis.mean_shift(grey, spatial=3, range=12, max_iter=12, backend="cpu"))
    assert np.array_equal(blurred, gpuvis.convolve(image, "gaussian:sigma=2", backend="cuda"))


@pytest.fixture(scope="module")
def video(cli, tmp_path_factory):
    if not gpuvis.video_available():
        pytest.skip("built without the video adapter (OpenCV videoio)")
    folder = tmp_path_factory.mktemp("video")
    from conftest import symbols_args
    cli("synth", folder, "--count", "23", "--sequence", "--speed", "3", "--symbols", "4", "--seed", "5", "--format", "avi",
        "--overwrite", *symbols_args())
    return str(folder / "frames.avi")


def test_video_frames_read_from_any_start_equal_a_reading_from_the_start(video):
    whole = gpuvis.read_video(video)
    assert whole.shape == (23, 480, 640) and whole.dtype == np.uint8
    assert gpuvis.video_frame_count(video) == 23
    assert np.array_equal(gpuvis.read_video(video, 9, 5), whole[9:14])
    frames = gpuvis.VideoFrames(video, 20)
    assert frames.next_index == 20
    assert [f.shape for f in frames] == [(480, 640)] * 3
    with pytest.raises(ValueError, match="has no frame 23"):
        gpuvis.VideoFrames(video, 23)


def test_batch_detection_over_a_video_on_a_local_cluster(video):
    det = gpuvis.Detector(backend="cpu")
    expected = [[(f.id, f.x, f.y, f.angle) for f in det.detect(frame).fiducials if f.id >= 0]
                for frame in gpuvis.VideoFrames(video)]
    assert sum(map(len, expected)) >= 23 * 3  # the frames hold symbols: the comparison means something
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        records = gd.detect_video(video, frames_per_task=5, backend="cpu").compute()
    assert [r["frame"] for r in records] == list(range(23))  # each frame once, in order, over 5 tasks
    for r in records:
        assert r["fiducials"] == expected[r["frame"]], r["frame"]


def test_a_killed_worker_loses_and_repeats_no_frame(frames):
    expected = expected_records(frames)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
        bag = gd.detect_files(frames * 8, partition_size=2, backend="cpu")
        future = client.compute(bag)
        # Kill one worker while partitions are running; the nanny restarts it and the scheduler runs
        # its lost partitions again.
        running_at_kill = []

        def kill():
            running_at_kill.append(not future.done())
            os.kill(pids[0], signal.SIGKILL)
        killer = threading.Timer(0.3, kill)
        killer.start()
        records = future.result(timeout=120)
        killer.join()
    assert running_at_kill == [True], "the run ended before the worker was killed: nothing was tested"
    files = sorted(r["file"] for r in records)
    assert files == sorted(frames * 8)
    for r in records:
        assert r["fiducials"] == expected[r["file"]]


@pytest.mark.parametrize("channels", [1, 3])
def test_chunked_mean_shift_segmentation_equals_one_call(channels):
    """The filter runs in chunks, the linking over the gathered modes: labels, filtered pixels and the
    region table equal one call's, with regions that cross chunk borders."""
    rng = np.random.default_rng(5)
    shape = (260, 330) if channels == 1 else (260, 330, 3)
    smooth = gpuvis.convolve(rng.random(shape).astype(np.float32), "gaussian:sigma=6", backend="cpu")
    img = np.clip((smooth - smooth.mean()) / smooth.std() * 45 + 128, 0, 255).astype(np.uint8)  # blobs of many shades
    arr = da.from_array(img, chunks=(40, 60) + ((3,) if channels == 3 else ()))
    options = dict(spatial=1.0, range=10.0, min_size=8)  # halo 100 (spatial x 100 steps): 2 x 3 chunks after merging
    labels, filtered, regions = gd.mean_shift_segment(arr, backend="cpu", **options)
    one_labels, one_filtered, one_regions = gpuvis.mean_shift_segment(img, backend="cpu", **options)
    assert len(one_regions) > 20
    assert np.array_equal(labels, one_labels)
    assert np.array_equal(filtered, one_filtered)
    assert regions == one_regions
    # Some region has pixels on both sides of the first chunk border (row 120).
    assert set(np.unique(one_labels[119])) & set(np.unique(one_labels[120]))
    # Smoothed first: chunks of the Gaussian with its halo, the same bytes as the one call's.
    noisy = np.clip(img.astype(np.float32) + rng.normal(0, 12, img.shape), 0, 255).astype(np.uint8)
    arr = da.from_array(noisy, chunks=(40, 60) + ((3,) if channels == 3 else ()))
    labels, filtered, regions = gd.mean_shift_segment(arr, backend="cpu", smooth=0.7, **options)
    one_labels, one_filtered, one_regions = gpuvis.mean_shift_segment(noisy, backend="cpu", smooth=0.7, **options)
    assert np.array_equal(labels, one_labels)
    assert np.array_equal(filtered, one_filtered)
    assert regions == one_regions
