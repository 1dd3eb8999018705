#include <gtest/gtest.h>

#include "cuda/memory.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "test_support.hpp"

using namespace gpuvis;

TEST(CudaRuntime, ReportsDevicesConsistently) {
  EXPECT_TRUE(cuda::compiled());
  const auto devs = cuda::devices();
  EXPECT_EQ(static_cast<int>(devs.size()), cuda::device_count());
  if (devs.empty()) {
    EXPECT_FALSE(cuda::unavailable_reason().empty());
  } else {
    EXPECT_GE(devs[0].major, 7);
    EXPECT_GT(devs[0].global_memory, 0u);
  }
}

TEST(CudaRuntime, SelfTestUploadsRunsAKernelAndDownloads) {
  GPUVIS_REQUIRE_GPU();
  EXPECT_EQ(cuda::self_test(), "");
}

TEST(CudaRuntime, PitchedRoundTripKeepsEveryPixel) {
  GPUVIS_REQUIRE_GPU();
  for (int channels : {1, 3, 4}) {
    const auto img = test::random_image(257, 33, 11, channels);
    cuda::Stream s;
    cuda::DeviceImage<std::uint8_t> dev(257, 33, channels);
    EXPECT_GE(dev.view().stride, 257 * channels);
    cuda::upload<std::uint8_t>(img.view(), dev.view(), s);
    Image<std::uint8_t> back(257, 33, channels);
    back.fill(0);
    cuda::download<std::uint8_t>(dev.view(), back.view(), s);
    s.synchronize();
    EXPECT_EQ(count_differences<std::uint8_t>(img.view(), back.view()), 0u);
  }
}

TEST(CudaRuntime, ErrorsBecomeExceptionsWithTheCudaMessage) {
  GPUVIS_REQUIRE_GPU();
  try {
    cuda::DeviceBuffer huge(std::size_t{1} << 50);  // 1 PiB
    FAIL() << "allocating 1 PiB should fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::cuda);
    EXPECT_NE(std::string(e.what()).find("cudaMalloc"), std::string::npos) << e.what();
  }
}
