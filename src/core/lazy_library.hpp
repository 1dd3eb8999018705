#pragma once
// Third-party libraries loaded on first use instead of linked: linked, OpenBLAS (its thread pool),
// cuBLAS (hundreds of MiB to map) and NVRTC would add 9 ms, about 250 ms and more to the start-up
// of every gpuvis command, which mostly never multiply matrices or compile Life rules. (gpuvis'
// own optional parts are plugins: core/plugin_loader.hpp.)
#include <dlfcn.h>

#include <initializer_list>
#include <string>

#include "gpuvis/core/error.hpp"

namespace gpuvis {

class LazyLibrary {
 public:
  // Tries each name in turn (a full path or a name the dynamic loader searches for).
  LazyLibrary(std::initializer_list<std::string> names, std::string what) : what_(std::move(what)) {
    for (const auto& n : names) {
      if (n.empty()) continue;
      handle_ = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle_) break;
      if (error_.empty()) error_ = dlerror();
    }
  }
  LazyLibrary(const LazyLibrary&) = delete;
  LazyLibrary& operator=(const LazyLibrary&) = delete;
  bool loaded() const { return handle_ != nullptr; }
  // The function `name`, typed as F; throws ErrorCode::unsupported when it is missing.
  template <class F>
  F get(const char* name) const {
    if (!handle_) fail(ErrorCode::unsupported, what_ + " could not be loaded (" + error_ + ")");
    void* p = dlsym(handle_, name);
    if (!p) fail(ErrorCode::unsupported, what_ + " has no function " + name);
    return reinterpret_cast<F>(p);
  }

 private:
  void* handle_ = nullptr;
  std::string what_, error_;
};

}  // namespace gpuvis
