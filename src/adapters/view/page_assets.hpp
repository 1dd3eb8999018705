#pragma once
// The live view's page (src/adapters/view/page/), compiled into the binary by CMake
// (view_page_assets.cpp in the build folder) so that `gpuvis track --view` needs no files at run time.
#include <string>

namespace gpuvis::output::view_assets {

struct Asset {
  const char* content_type;
  std::string content;
};
// The asset served at an HTTP target ("/" is index.html; a query string is ignored), or null.
const Asset* find(const std::string& target);

}  // namespace gpuvis::output::view_assets
