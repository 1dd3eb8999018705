#pragma once
// The one seam for optional parts: each adapter with libraries of its own (codecs, GIF, NIfTI, PDF,
// video, ...) is a plugin (libgpuvis_<name>.so) loaded with dlopen the first time it is used, so
// that its libraries cost nothing to the commands that never use it, and a build without the
// library simply has no plugin: find() then says, in one line, what to install. Each plugin exports
// one entry point returning a table of functions whose first member is its interface version.
//
// A plugin is looked for, in order, in $GPUVIS_PLUGIN_DIR, beside the running program, in
// lib/gpuvis (and lib64/gpuvis) of an installed program's prefix, beside the module gpuvis is
// linked into (and its lib/gpuvis: Python's wheel), in the install prefix gpuvis was configured
// for, and in the build tree the library was built in.
#include <string>

namespace gpuvis::plugins {

struct Plugin {
  const char* file;         // "libgpuvis_pdf.so"
  const char* entry_point;  // the exported function returning the table
  int version;              // the table's first member must equal it
  const char* what;         // "PDF output", for messages
  const char* install;      // what to install when it was not built: "librsvg2-dev"
};

// The plugin's table, loaded once per process (the library stays open), or null: `error` (when
// given) then says, in one line, what is missing and what to do.
const void* find(const Plugin& plugin, std::string* error = nullptr);

// The table, or ErrorCode::unsupported with that line.
const void* require(const Plugin& plugin);

}  // namespace gpuvis::plugins
