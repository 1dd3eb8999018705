#pragma once
// Optional parts built as plugins (libgpuvis_<name>.so), loaded with dlopen the first time they are
// used, so that their libraries cost nothing to the commands that never use them (the video
// stack's ~230 libraries, librsvg and cairo's ~35, nifticlib). Each plugin exports one entry point
// returning a table of functions whose first member is its interface version.
//
// A plugin is looked for, in order, in $GPUVIS_PLUGIN_DIR, beside the running program, in
// lib/gpuvis (and lib64/gpuvis) of an installed program's prefix and in the build tree the library
// was built in.
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
