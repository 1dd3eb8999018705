#include "core/plugin_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "gpuvis/core/error.hpp"

namespace gpuvis::plugins {
namespace {

struct Loaded {
  const void* table = nullptr;
  std::string error;
};

std::vector<std::filesystem::path> plugin_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("GPUVIS_PLUGIN_DIR"); env && *env) dirs.emplace_back(env);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path());
    dirs.push_back(exe.parent_path().parent_path() / "lib" / "gpuvis");  // an installed program (bin/..)
    dirs.push_back(exe.parent_path().parent_path() / "lib64" / "gpuvis");
  }
  // The module gpuvis is linked into when that is not the program: Python's gpuvis/_gpuvis, whose
  // wheel keeps the plugins in lib/gpuvis beside it, and which `cmake --install` puts in
  // PREFIX/lib/python3/dist-packages/gpuvis, three folders below PREFIX/lib/gpuvis.
  Dl_info self{};
  if (dladdr(reinterpret_cast<const void*>(&plugin_dirs), &self) && self.dli_fname) {
    const auto module = std::filesystem::path(self.dli_fname).parent_path();
    if (ec || module != exe.parent_path()) {
      dirs.push_back(module);
      dirs.push_back(module / "lib" / "gpuvis");
      dirs.push_back(module.parent_path().parent_path().parent_path() / "gpuvis");
    }
  }
  dirs.emplace_back(GPUVIS_PLUGIN_INSTALL_DIR);  // where `cmake --install` puts them
  dirs.emplace_back(GPUVIS_PLUGIN_BUILD_DIR);
  return dirs;
}

Loaded load(const Plugin& p) {
  Loaded out;
  for (const auto& dir : plugin_dirs()) {
    const auto path = dir / p.file;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      out.error = std::string(p.what) + " is unavailable: cannot load " + path.string() + ": " + dlerror();
      return out;
    }
    using Entry = const void* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, p.entry_point));
    const void* table = entry ? entry() : nullptr;
    if (!table || *static_cast<const int*>(table) != p.version) {
      out.error = path.string() + " is not a plugin of this gpuvis build; rebuild it";
      return out;
    }
    out.table = table;  // the handle stays open for the life of the process
    return out;
  }
  out.error = std::string(p.what) + " is not built in (" + p.file + " was not found beside gpuvis or in GPUVIS_PLUGIN_DIR): install " +
              p.install + " and rebuild";
  return out;
}

}  // namespace

const void* find(const Plugin& plugin, std::string* error) {
  static std::mutex mutex;
  static std::map<std::string, Loaded> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(plugin.file);
  if (it == loaded.end()) it = loaded.emplace(plugin.file, load(plugin)).first;
  if (error) *error = it->second.error;
  return it->second.table;
}

const void* require(const Plugin& plugin) {
  std::string error;
  const void* table = find(plugin, &error);
  if (!table) fail(ErrorCode::unsupported, error);
  return table;
}

}  // namespace gpuvis::plugins
