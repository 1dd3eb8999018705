// Frames already in device memory (Detector::submit(DeviceView, stream): CuPy or PyTorch frames, a
// capture that writes into the GPU) give the detections the same frames give from host memory:
// with the second look at work (it downloads the frame), two frames in flight, the equaliser's
// first frame becoming the background, and a frame still being written on the caller's stream.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <vector>

#include "compare_detections.hpp"
#include "cuda/check.hpp"
#include "cuda/memory.hpp"
#include "gpuvis/core/error.hpp"
#include "gpuvis/pipeline/detector.hpp"
#include "gpuvis/synth/scene.hpp"
#include "test_support.hpp"

using namespace gpuvis;

namespace {

pipeline::DetectorParams on_gpu(pipeline::DetectorParams config) {
  config.backend = Backend::cuda;
  return config;
}

// The frames on the device, each in its own image (uploaded before any detection).
std::vector<cuda::DeviceImage<std::uint8_t>> on_device(const std::vector<Image<std::uint8_t>>& frames) {
  std::vector<cuda::DeviceImage<std::uint8_t>> out;
  cuda::Stream stream;
  for (const auto& f : frames) {
    out.emplace_back(f.width(), f.height());
    cuda::upload<std::uint8_t>(f.view(), out.back().view(), stream);
  }
  stream.synchronize();
  return out;
}

// Smeared symbols (the second look decodes some) and plain ones.
std::vector<Image<std::uint8_t>> smeared_frames() {
  synth::Generator gen(test::symbols_dir());
  std::vector<Image<std::uint8_t>> frames;
  for (int i = 0; i < 8; ++i) {
    synth::SceneParams q;
    q.symbols = 8;
    q.min_size = 53;
    q.max_size = 89;
    q.motion_px = i % 4 == 0 ? 0 : 4 + i % 4;
    q.seed = 1300 + static_cast<std::uint32_t>(i);
    frames.push_back(std::move(gen.make(q).image));
  }
  return frames;
}

TEST(PipelineDeviceFrames, EqualHostFramesOneAtATimeAndTwoInFlight) {
  GPUVIS_REQUIRE_GPU();
  const auto frames = smeared_frames();
  const auto device = on_device(frames);
  pipeline::DetectorParams config;
  config.fingers.size = 14;
  config.blobs.object_blobs = true;
  pipeline::Detector host(on_gpu(config)), from_device(on_gpu(config)), pipelined(on_gpu(config));
  std::vector<pipeline::Detections> expected;
  int looked_again = 0, symbols = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    expected.push_back(host.detect(frames[i].view()));
    for (const auto& l : expected.back().second_looks) looked_again += l.id >= 0;
    symbols += static_cast<int>(expected.back().fiducials.size());
    EXPECT_TRUE(test::same_detections(expected.back(), from_device.detect(DeviceView<const std::uint8_t>(device[i].view()))))
        << "frame " << i;
    // The frame the second look read is the device frame, downloaded.
    EXPECT_EQ(count_differences<std::uint8_t>(frames[i].view(), from_device.received_frame()), 0u) << "frame " << i;
  }
  EXPECT_GT(looked_again, 0) << "no symbol came from the second look: the frames do not test its download";
  EXPECT_GT(symbols, 30);
  std::size_t next = 0;
  for (const auto& d : device) {
    pipelined.submit(DeviceView<const std::uint8_t>(d.view()));
    if (pipelined.in_flight() == pipeline::Detector::kMaxInFlight) {
      EXPECT_TRUE(test::same_detections(expected[next], pipelined.receive())) << "pipelined frame " << next;
      ++next;
    }
  }
  while (pipelined.in_flight() > 0) {
    EXPECT_TRUE(test::same_detections(expected[next], pipelined.receive())) << "pipelined frame " << next;
    ++next;
  }
}

// The equaliser's background is the first frame (downloaded for it), and frames are equalised on
// the device as host frames are; the received frame is the equalised one.
TEST(PipelineDeviceFrames, EqualiserFromTheFirstDeviceFrameEqualsTheHostPath) {
  GPUVIS_REQUIRE_GPU();
  const auto frames = test::under_uneven_light(test::symbols_and_wiped_frames(5, 640, 480, 45));
  const auto device = on_device(frames);
  pipeline::DetectorParams config;
  config.equalize = true;
  pipeline::Detector host(on_gpu(config)), from_device(on_gpu(config));
  int symbols = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto& h = host.detect(frames[i].view());
    symbols += static_cast<int>(h.fiducials.size());
    Image<std::uint8_t> seen(frames[i].width(), frames[i].height());
    copy<std::uint8_t>(host.received_frame(), seen.view());
    const pipeline::Detections expected = h;
    EXPECT_TRUE(test::same_detections(expected, from_device.detect(DeviceView<const std::uint8_t>(device[i].view())))) << "frame " << i;
    EXPECT_EQ(count_differences<std::uint8_t>(seen.view(), from_device.received_frame()), 0u) << "equalised frame " << i;
  }
  EXPECT_GT(symbols, 10);
}

// A frame still being copied in on the caller's own stream is read after that copy: the detector
// waits for the work queued there, and the next write queued there waits for the detector's copy.
TEST(PipelineDeviceFrames, TheCallersStreamOrdersTheFrame) {
  GPUVIS_REQUIRE_GPU();
  const auto frames = smeared_frames();
  pipeline::DetectorParams config;
  pipeline::Detector host(on_gpu(config)), from_device(on_gpu(config));
  cuda::DeviceImage<std::uint8_t> shared(frames[0].width(), frames[0].height());
  cuda::Stream caller;
  for (std::size_t i = 0; i < 4; ++i) {
    const pipeline::Detections expected = host.detect(frames[i].view());
    // Pageable memory: the copy is queued on `caller` and may still run when submit() is called.
    GPUVIS_CUDA_CHECK(cudaMemcpy2DAsync(shared.view().data, static_cast<std::size_t>(shared.view().stride), frames[i].view().data,
                                        static_cast<std::size_t>(frames[i].view().stride), static_cast<std::size_t>(frames[i].width()),
                                        static_cast<std::size_t>(frames[i].height()), cudaMemcpyHostToDevice, caller.get()));
    from_device.submit(DeviceView<const std::uint8_t>(shared.view()), caller.get());
    // Overwritten on the caller's stream right away: ordered after the detector's copy.
    GPUVIS_CUDA_CHECK(cudaMemsetAsync(shared.view().data, 0, static_cast<std::size_t>(shared.view().stride) * shared.view().height, caller.get()));
    EXPECT_TRUE(test::same_detections(expected, from_device.receive())) << "frame " << i;
  }
  caller.synchronize();
}

TEST(PipelineDeviceFrames, TheCpuBackendRefusesThemWithOneLine) {
  pipeline::DetectorParams config;
  config.backend = Backend::cpu;
  pipeline::Detector cpu(config);
  std::uint8_t dummy[16] = {};
  const DeviceView<const std::uint8_t> view{dummy, 4, 4, 1, 4};
  try {
    cpu.submit(view);
    FAIL() << "a device frame was accepted by the CPU backend";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("needs the CUDA backend"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cpu.in_flight(), 0);
}

}  // namespace
