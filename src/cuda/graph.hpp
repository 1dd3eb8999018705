#pragma once
// An owned, instantiated CUDA graph captured from what a piece of work enqueues on a stream, and
// replayed with one launch.
#include <cuda_runtime_api.h>

#include "gpuvis/core/error.hpp"
#include "cuda/check.hpp"

namespace gpuvis::cuda {

class Graph {
 public:
  Graph() = default;
  ~Graph() { reset(); }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  void reset() {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }
  // Captures what `work` enqueues on `stream`. On failure the stream leaves capture mode, the error
  // is cleared and the graph stays empty (the caller may go on launching eagerly).
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

}  // namespace gpuvis::cuda
