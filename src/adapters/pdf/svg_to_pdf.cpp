// The PDF plugin (libgpuvis_pdf.so, io/pdf_plugin.hpp): librsvg parses and draws each SVG page onto
// cairo's PDF surface at the page's own physical size.
#include <cairo-pdf.h>
#include <librsvg/rsvg.h>

#include <cstdio>
#include <memory>

#include "gpuvis/core/error.hpp"
#include "io/pdf_plugin.hpp"

namespace gpuvis::pdf {
namespace {

// An SVG length in PDF points (1/72 in); px are CSS pixels (1/96 in).
double points(const RsvgLength& l, int page, const char* what) {
  switch (l.unit) {
    case RSVG_UNIT_MM: return l.length * 72 / 25.4;
    case RSVG_UNIT_CM: return l.length * 72 / 2.54;
    case RSVG_UNIT_IN: return l.length * 72;
    case RSVG_UNIT_PT: return l.length;
    case RSVG_UNIT_PX: return l.length * 0.75;
    default:
      fail(ErrorCode::format, "PDF page " + std::to_string(page + 1) + ": the SVG's " + what + " is not an absolute length");
  }
}

struct Handle {
  RsvgHandle* h = nullptr;
  ~Handle() {
    if (h) g_object_unref(h);
  }
};

// cairo writes through a callback into memory; the file is written once, atomically.
cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

std::string render_svg_pages(const std::vector<std::string>& svg_pages) {
  std::string bytes;
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
      cairo_pdf_surface_create_for_stream(append, &bytes, 595.0, 842.0), cairo_surface_destroy);
  std::unique_ptr<cairo_t, decltype(&cairo_destroy)> cr(cairo_create(surface.get()), cairo_destroy);
  for (std::size_t i = 0; i < svg_pages.size(); ++i) {
    const int page = static_cast<int>(i);
    GError* error = nullptr;
    Handle handle{rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg_pages[i].data()), svg_pages[i].size(), &error)};
    if (!handle.h) {
      const std::string why = error ? error->message : "unknown error";
      if (error) g_error_free(error);
      fail(ErrorCode::format, "PDF page " + std::to_string(page + 1) + ": the SVG does not parse: " + why);
    }
    gboolean has_width = FALSE, has_height = FALSE, has_viewbox = FALSE;
    RsvgLength width{}, height{};
    RsvgRectangle viewbox{};
    rsvg_handle_get_intrinsic_dimensions(handle.h, &has_width, &width, &has_height, &height, &has_viewbox, &viewbox);
    if (!has_width || !has_height)
      fail(ErrorCode::format, "PDF page " + std::to_string(page + 1) + ": the SVG has no width and height to size the page by");
    const double w = points(width, page, "width"), h = points(height, page, "height");
    cairo_pdf_surface_set_size(surface.get(), w, h);
    const RsvgRectangle viewport{0, 0, w, h};
    if (!rsvg_handle_render_document(handle.h, cr.get(), &viewport, &error)) {
      const std::string why = error ? error->message : "unknown error";
      if (error) g_error_free(error);
      fail(ErrorCode::format, "PDF page " + std::to_string(page + 1) + ": " + why);
    }
    cairo_show_page(cr.get());
  }
  cr.reset();
  cairo_surface_finish(surface.get());
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
    fail(ErrorCode::io, std::string("PDF: ") + cairo_status_to_string(cairo_surface_status(surface.get())));
  return bytes;
}

constexpr plugin::Api kApi{plugin::kPlugin.version, render_svg_pages};

}  // namespace

}  // namespace gpuvis::pdf

extern "C" __attribute__((visibility("default"))) const void* gpuvis_pdf_plugin() { return &gpuvis::pdf::kApi; }
