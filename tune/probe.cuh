// probe.cuh -- the start every probe of tune/ shares (drop_stage.cu, cluster_launch.cu): the zoo's
// command line, with `default_sizes` where none is given; the watchdog; a stream; the L2 flusher
// unless --hot; and the header of a timing table, so that a saved output names its GPU.
#pragma once

#include <cstdio>
#include <vector>

#include "harness/harness.cuh"

namespace zoo::probe {

// False (the message said) on a usage error: the probe exits 2.
inline bool start_probe(const char* name, const char* title, int argc, char** argv, const char* default_sizes,
                        Session& session) {
  session.variant = name;
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
  std::printf("# l2: %s\n", session.options.hot ? "hot" : "cold");
  std::printf("%s\n", kRowColumns);
  return true;
}

}  // namespace zoo::probe
