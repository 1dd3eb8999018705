#pragma once
// Errors: every failure the user can cause (bad file, bad parameter, missing device) is reported as
// a gpuvis::Error with a message that says what to fix. Nothing is ignored silently.
#include <cstdio>
#include <stdexcept>
#include <string>

namespace gpuvis {

enum class ErrorCode {
  invalid_argument,  // a parameter or image size the operation cannot take
  io,                // a file could not be opened, read or written
  format,            // a file was read but its contents are malformed or truncated
  unsupported,       // a feature that is not built in (e.g. CUDA, PNG) or not implemented for a type
  cuda,              // a CUDA runtime call failed
  opencl,            // an OpenCL call failed
};

// The message an Error carries: every quoted value ('...') longer than 120 characters keeps its
// first 60 and last 30 and says how long it was, and the whole message stops at 2,000 characters,
// so a 10 MB attribute or path cannot come back as a 10 MB line.
std::string bounded_message(const std::string& message);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(bounded_message(message)), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

[[noreturn]] inline void fail(ErrorCode code, const std::string& message) { throw Error(code, message); }

inline void require(bool condition, const std::string& message) {
  if (!condition) fail(ErrorCode::invalid_argument, message);
}

// A number as a message quotes it: as the user would write it ("-1", "0.5"), not std::to_string's
// "-1.000000".
inline std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace gpuvis
