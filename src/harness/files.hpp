// files.hpp -- --input and --output: a user's raw little-endian array in, the scanned array out
// (docs/cli.md). A bad file is a usage error (exit code 2), found before the GPU
// is touched. Host code only.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/ops.cuh"
#include "../core/rows.hpp"

namespace zoo {

// What a path that is not a regular file is, for the message.
inline const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "a special file";
}

// The whole file into `bytes`. Only a regular file has a size to check before reading: a
// directory opens and reads as empty on some file systems (tmpfs, /proc), which would scan
// nothing and pass, and a FIFO would block the open until a writer comes. So the type is
// checked first, from the path, without opening it.
inline bool read_input_file(const std::string& path, std::size_t element_bytes,
                            std::int64_t expected_n, std::vector<char>& bytes, std::string& error) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    error = "cannot open --input file '" + path + "': " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(status.st_mode)) {
    error = "--input '" + path + "' is " + file_kind(status.st_mode) + ", not a regular file";
    return false;
  }
  const long long size = status.st_size;
  if (size % static_cast<long long>(element_bytes) != 0) {
    error = "--input file '" + path + "' has " + std::to_string(size) + " bytes, not a whole number of " +
            std::to_string(element_bytes) + "-byte elements";
    return false;
  }
  if (expected_n >= 0 && size / static_cast<long long>(element_bytes) != expected_n) {
    error = "--input file '" + path + "' holds " + std::to_string(size / element_bytes) +
            " elements but N = " + std::to_string(expected_n) + " was given";
    return false;
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = "cannot open --input file '" + path + "': " + std::strerror(errno);
    return false;
  }
  bytes.resize(static_cast<std::size_t>(size));
  std::size_t got = size ? std::fread(bytes.data(), 1, bytes.size(), file) : 0;
  std::fclose(file);
  if (got != bytes.size()) {
    error = "short read from --input file '" + path + "'";
    return false;
  }
  return true;
}

// A floating-point --input must be finite: one NaN or infinity turns every later prefix into
// NaN or infinity, which no check can tell from a wrong scan (a corrupted file, most likely).
inline bool finite_input(const std::string& type, const std::vector<char>& bytes, std::string& error) {
  with_type(type, AllTypes{}, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_floating_point_v<T>) {
      const T* values = reinterpret_cast<const T*>(bytes.data());
      const std::size_t count = bytes.size() / sizeof(T);
      for (std::size_t i = 0; i < count && error.empty(); ++i)
        if (!std::isfinite(values[i]))
          error = "element " + std::to_string(i) + " is " +
                  (std::isnan(values[i]) ? "nan" : values[i] < 0 ? "-inf" : "inf") + ": a " + type +
                  " input must be finite (corrupted file?)";
    }
  });
  return error.empty();
}

// --output: the scanned array as raw little-endian elements. An unwritable path is a usage error.
template <class T>
void write_output_file(const std::string& path, const T* data, std::int64_t n) {
  if (path.empty()) return;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  bool written = file && (n == 0 || std::fwrite(data, sizeof(T), n, file) == static_cast<std::size_t>(n));
  if (file && std::fclose(file) != 0) written = false;
  if (!written) {
    std::fprintf(stderr, "cannot write --output file '%s': %s\n", path.c_str(), std::strerror(errno));
    std::exit(kExitUsage);
  }
}

}  // namespace zoo
