// gpuvis info: what this build contains and what hardware it sees.
#include <iostream>
#include <thread>

#include "cli_common.hpp"
#include "gpuvis/config/reactivision.hpp"
#include "gpuvis/core/build_info.hpp"
#include "gpuvis/output/live_view.hpp"
#include "gpuvis/output/tuio.hpp"
#include "gpuvis/source/frame_source.hpp"
#include "gpuvis/core/parallel.hpp"
#include "gpuvis/cuda/runtime.hpp"
#include "gpuvis/filters/convolve.hpp"
#include "gpuvis/io/volume_file.hpp"
#include "gpuvis/io/gif.hpp"
#include "gpuvis/lab/lab.hpp"
#include "gpuvis/life/life.hpp"
#include "gpuvis/opencl/devices.hpp"

namespace gpuvis::cli {

void register_info(CLI::App& app, Command& run) {
  auto* cmd = app.add_subcommand("info", "Show build options, CUDA and OpenCL devices and CPU cores");
  static bool self_test = false;
  cmd->add_flag("--self-test", self_test, "Also run a short upload/kernel/download check on each CUDA device");
  cmd->callback([&run] {
    run = [] {
      std::cout << "gpuvis " << version() << " (" << build_type() << ")\n"
                << "  CUDA backend:   " << (built_with_cuda() ? "built (architectures " + cuda_architectures() + ")" : "not built") << "\n"
                << "  PNG/JPEG:       " << (built_with_codecs() ? "yes (libpng, libjpeg)" : "no (PGM/PPM/PFM only)") << "\n"
                << "  TUIO output:    " << (output::tuio_available() ? "yes (liblo: UDP, TCP, WebSocket)" : "no (install liblo-dev)") << "\n"
                << "  live view:      " << (output::live_view_available() ? "yes (track --view)" : "no (install libboost-dev)") << "\n"
                << "  video/camera:   " << (source::video_available() ? "yes (OpenCV videoio)" : "no (install libopencv-dev)") << "\n"
                << "  reacTIVision.xml: " << (config::xml_available() ? "yes (tinyxml2)" : "no (install libtinyxml2-dev)") << "\n"
                << "  animated GIF:   " << (gif::available() ? "yes (giflib)" : "no (install libgif-dev)") << "\n"
                << "  NIfTI volumes:  " << (nifti::available() ? "yes (nifticlib)" : "no (install libnifti2-dev)") << "\n"
                << "  lab CPU matmul: " << (lab::blas_available() ? "yes (OpenBLAS, loaded on use)" : "no (install libopenblas-dev)") << "\n"
                << "  CPU filters:    " << filters::cpu_vector_unit() << "\n"
                << "  CPU threads:    " << num_threads() << " (hardware: " << std::thread::hardware_concurrency() << ")\n";
      if (built_with_cuda()) {
        std::cout << "  CUDA runtime:   " << cuda::runtime_version() << ", driver "
                  << (cuda::driver_version().empty() ? "none" : cuda::driver_version()) << "\n";
        std::string why;
        const bool compiled = life::compiled_rules_available(&why);
        std::cout << "  Life rules:     " << (compiled ? "each in its own CUDA kernel (NVRTC)" : "the generic CUDA kernel: " + why) << "\n";
      }
      std::string no_opencl;
      const auto opencl_devices = opencl::devices(&no_opencl);
      if (opencl_devices.empty()) std::cout << "  OpenCL devices: " << no_opencl << "\n";
      std::string opencl_choice;
      try {
        if (!opencl_devices.empty()) opencl_choice = opencl::chosen_device().name;
      } catch (const Error& e) {
        std::cout << "  OpenCL choice:  " << e.what() << "\n";
      }
      for (const auto& d : opencl_devices)
        std::cout << "  OpenCL device " << d.index << ": " << d.name << " (" << d.platform << ", " << d.version << ", "
                  << (d.gpu ? "GPU" : "not a GPU") << ", " << (d.memory >> 20) << " MiB)"
                  << (d.name == opencl_choice ? "  <- --backend opencl" : "") << "\n";
      const auto devices = cuda::devices();
      if (devices.empty()) {
        std::cout << "  CUDA devices:   " << cuda::unavailable_reason() << "\n";
        return 0;
      }
      for (const auto& d : devices) {
        std::cout << "  CUDA device " << d.index << ":  " << d.name << ", compute " << d.major << "." << d.minor << ", "
                  << d.multiprocessors << " SMs, " << (d.global_memory >> 20) << " MiB, L2 " << (d.l2_cache >> 20) << " MiB\n";
      }
      if (self_test) {
        const std::string problem = cuda::self_test();
        std::cout << "  self-test:      " << (problem.empty() ? "passed" : "FAILED: " + problem) << "\n";
        return problem.empty() ? 0 : 1;
      }
      return 0;
    };
  });
}

}  // namespace gpuvis::cli
