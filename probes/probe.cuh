// probe.cuh -- the start every probe of probes/ shares (drop_stage.cu, cluster_launch.cu,
// mixed_types.cu, determinism.cu): the zoo's command line, with `default_sizes` where none is
// given; the watchdog; a stream; the L2 flusher unless --hot; and the header of a timing table,
// so that a saved output names its GPU. And device arrays that exit when they do not fit.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "harness/harness.cuh"

namespace zoo::probe {

// False (the message said) on a usage error: the probe exits 2.
inline bool start_probe(const char* name, const char* title, int argc, char** argv, const char* default_sizes,
                        Session& session) {
  std::vector<char*> args(argv, argv + argc);
  if (argc < 2 || argv[1][0] == '-') args.insert(args.begin() + 1, const_cast<char*>(default_sizes));
  try {
    session.options = parse_command_line(static_cast<int>(args.size()), args.data());
  } catch (const UsageError& error) {
    std::fprintf(stderr, "%s: error: %s\n", name, error.what());
    return false;
  }
  g_timeout_s = session.options.timeout_s;
  ensure_cuda_device();
  ZOO_CUDA(cudaStreamCreateWithFlags(&session.stream, cudaStreamNonBlocking));
  if (!session.options.hot) session.flusher.prepare();
  std::printf("# %s\n", title);
  print_device_info();
  // The commit and the date, as bench.sh heads its tables (the GPU machine's copy of the tree has
  // no .git: scripts/device_session.sh passes SCAN_ZOO_COMMIT).
  if (const char* commit = std::getenv("SCAN_ZOO_COMMIT")) std::printf("# git_commit: %s\n", commit);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::printf("# date: %s\n", date);
  std::printf("# l2: %s\n", session.options.hot ? "hot" : "cold");
  std::printf("%s\n", kRowColumns);
  return true;
}

// n elements of T in `buffer`; a probe that cannot have them says so and exits kExitCudaOrMemory.
template <class T>
T* device_array(DeviceBuffer& buffer, std::int64_t n, const char* probe) {
  if (!buffer.allocate(std::size_t(n) * sizeof(T))) {
    std::fprintf(stderr, "%s: n=%lld does not fit in device memory\n", probe, static_cast<long long>(n));
    std::exit(kExitCudaOrMemory);
  }
  return static_cast<T*>(buffer.pointer);
}

}  // namespace zoo::probe
