// The CUDA detector: upload -> threshold -> segmentation -> decoding (fiducials, root candidates,
// fingers and blobs) on one stream, one host wait per frame, and only the results back.
//
// The device work of a frame (everything after the upload) is captured once into a CUDA graph and
// replayed: one launch instead of about thirty, which is most of a small frame's time. A graph
// holds buffer addresses and grid sizes, so it is captured again when the frame size or the
// segmenter's capacity changes; what changes every frame (the frame itself, the root-candidate
// band) reaches the device through the upload and a copy from pinned memory inside the graph.
// A frame that overflows the segmenter's capacity is run again eagerly with more room.
#include <cstdlib>
#include <cstring>

#include "front_end_cuda.hpp"
#include "gpuvis/cuda/check.hpp"
#include "gpuvis/decode/decode_cuda.hpp"

namespace gpuvis::pipeline {
namespace {

class CudaGraph {
 public:
  CudaGraph() = default;
  ~CudaGraph() { reset(); }
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;
  bool ready() const { return exec_ != nullptr; }
  void reset() {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }
  // Captures what `work` enqueues on `stream`. On failure the stream leaves capture mode, the error
  // is cleared and the graph stays empty (the caller goes on launching eagerly).
  template <class Work>
  bool capture(cudaStream_t stream, Work&& work) {
    reset();
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return false;
    bool ok = true;
    try {
      work();
    } catch (const Error&) {
      ok = false;
    }
    cudaGraph_t graph = nullptr;
    ok = cudaStreamEndCapture(stream, &graph) == cudaSuccess && ok;
    if (ok) ok = cudaGraphInstantiate(&exec_, graph, 0) == cudaSuccess;
    if (graph) cudaGraphDestroy(graph);
    if (!ok) {
      exec_ = nullptr;
      cudaGetLastError();
    }
    return ok;
  }
  void launch(cudaStream_t stream) { GPUVIS_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

// GPUVIS_CUDA_GRAPH=0 launches every frame eagerly (per-stage GPU times are measured then).
bool graphs_wanted() {
  const char* v = std::getenv("GPUVIS_CUDA_GRAPH");
  return !(v && std::strcmp(v, "0") == 0);
}

class CudaDetector final : public DeviceDetector {
 public:
  CudaDetector(const threshold::Params& params, const decode::TreeSet& set, const decode::FingerParams& fingers,
               const decode::BlobParams& blobs)
      : front_end_(params), decoder_(set, fingers, blobs), cap_(set.cap()), use_graph_(graphs_wanted()) {}

  void detect(HostView<const std::uint8_t> grey, int root_min, int root_max, DeviceDetections& out) override {
    const cudaStream_t stream = front_end_.stream();
    for (;;) {
      front_end_.upload(grey);
      bool replay = use_graph_ && graph_.ready() && grey.width == width_ && grey.height == height_;
      if (replay) {
        decoder_.set_band({root_min, root_max}, capacity_, run_capacity_);
        replay = decoder_.generation() == generation_;  // no reallocation since the capture
      }
      if (replay) {
        graph_.launch(stream);
      } else {
        const auto& device_tree = front_end_.enqueue_device_stages(cap_);
        capacity_ = device_tree.capacity;
        run_capacity_ = device_tree.run_capacity;
        decoder_.decode(device_tree, {root_min, root_max}, front_end_.grey(), stream);
      }
      decoded_.record(stream);
      decoder_.collect(out.fiducials, out.roots, out.stats, stream, &out.blobs);
      if (front_end_.accept(decoder_.segment_totals())) {
        out.regions = static_cast<int>(decoder_.segment_totals() >> 32);
        out.times = {};
        out.times.device_us = 1000.0 * cuda::Event::elapsed_ms(front_end_.start(), decoded_);
        if (!replay) {  // per-stage GPU times exist only for eagerly launched frames
          out.times.threshold_us = front_end_.threshold_us();
          out.times.segment_us = front_end_.segment_us();
          out.times.decode_us = 1000.0 * cuda::Event::elapsed_ms(front_end_.segmented(), decoded_);
          if (use_graph_) capture(grey.width, grey.height, root_min, root_max);
        }
        return;
      }
      graph_.reset();  // the capacity grew: buffers moved
    }
  }

 private:
  // After an eager frame every buffer has its size for this frame size and capacity, so the
  // device stages can be captured without allocating. (Capturing runs nothing: the last frame's
  // results stay as they are.)
  void capture(int width, int height, int root_min, int root_max) {
    decoder_.set_band({root_min, root_max}, capacity_, run_capacity_);
    const bool ok = graph_.capture(front_end_.stream(), [&] {
      const auto& t = front_end_.enqueue_device_stages(cap_);
      decoder_.enqueue(t, front_end_.grey(), front_end_.stream());
    });
    if (ok) {
      width_ = width;
      height_ = height;
      generation_ = decoder_.generation();
    } else {
      use_graph_ = false;  // e.g. a driver without graph support for these nodes: stay eager
    }
  }

  CudaFrontEnd front_end_;
  decode::cuda_impl::Decoder decoder_;
  int cap_;
  bool use_graph_;
  CudaGraph graph_;
  int width_ = 0, height_ = 0;  // the frame size the graph was captured for
  int capacity_ = 0;            // the segmenter's region capacity of the last eager frame
  int run_capacity_ = 0;        // and its run capacity
  int generation_ = -1;         // the decoder's scratch generation the graph was captured with
  cuda::Event decoded_;
};

}  // namespace

std::unique_ptr<DeviceDetector> make_cuda_detector(const threshold::Params& params, const decode::TreeSet& set,
                                                   const decode::FingerParams& fingers, const decode::BlobParams& blobs) {
  threshold::validate(params);
  return std::make_unique<CudaDetector>(params, set, fingers, blobs);
}

}  // namespace gpuvis::pipeline
