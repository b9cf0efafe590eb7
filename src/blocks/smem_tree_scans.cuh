// smem_tree_scans.cuh -- the classic block-level scans over an array in shared memory: the
// algorithms of the shared-memory tree family. Each is a struct with
//   template <class T, class Op, int N> __device__ static void inclusive(T* s);
// that turns s[slot(0..N-1)] into its inclusive scan, run by every thread of the block. It
// begins with a barrier (so the caller's writes to s are visible) and ends with one (so the
// caller may read any slot). N is a power of two; Kogge-Stone takes N <= blockDim.x (one element
// per thread), the tree scans N <= 2 * blockDim.x. `slot(i)` is where element i lives: i itself,
// except for the conflict-free Blelloch layout, and `kStorage<N>` how many slots s must have.
//
//   tree                      work (combines)     steps          barriers / step   source
//   KoggeStoneTree            N log2 N - N + 1    log2 N         2 (in place)      Kogge & Stone 1973
//   KoggeStoneDoubleBuffered  N log2 N - N + 1    log2 N         1 (ping-pong)
//   BrentKungTree             2N - log2 N - 2     2 log2 N - 1   1                 Brent & Kung 1982
//   BrentKungDoubleBuffered   same, but copies all N elements every step (slower: see header)
//   BlellochTree<false>       2(N - 1) + N        2 log2 N + 1   1                 Blelloch 1990
//   BlellochTree<true>        the same with one pad slot per 32 (no bank conflicts)
#pragma once

namespace zoo {

struct PlainLayout {
  template <int N>
  static constexpr int kStorage = N;
  __device__ __forceinline__ static int slot(int i) { return i; }
};

// Two shared buffers for the double-buffered trees: each step reads `from` and writes `to`,
// then swap() makes the writes visible and exchanges the roles; finish() leaves the result in
// the caller's array (a copy when the number of steps was odd).
template <class T, int N>
struct PingPong {
  T* from;
  T* to;
  T* home;
  __device__ PingPong(T* s, T* other) : from(s), to(other), home(s) { __syncthreads(); }
  __device__ void swap() {
    __syncthreads();
    T* previous = from;
    from = to;
    to = previous;
  }
  __device__ void finish() {
    if (from == home) return;
    for (int j = threadIdx.x; j < N; j += blockDim.x) home[j] = from[j];
    __syncthreads();
  }
};

// Kogge-Stone: in step k every element combines the one 2^k to its left. In place, a thread
// must not overwrite its element before its right-hand partner has read it: read, barrier,
// write, barrier.
struct KoggeStoneTree : PlainLayout {
  template <class T, class Op, int N>
  __device__ static void inclusive(T* s) {
    const Op op;
    const int t = threadIdx.x;
    for (int stride = 1; stride < N; stride *= 2) {
      __syncthreads();  // the previous step's writes are visible
      T left;
      if (t < N && t >= stride) left = s[t - stride];
      __syncthreads();  // every read of this step is done before anyone overwrites
      if (t < N && t >= stride) s[t] = op(left, s[t]);
    }
    __syncthreads();
  }
};

// Kogge-Stone with two buffers: each step reads one and writes the other, so a single barrier
// per step suffices. After an odd number of steps the result is copied back into s.
struct KoggeStoneDoubleBufferedTree : PlainLayout {
  template <class T, class Op, int N>
  __device__ static void inclusive(T* s) {
    __shared__ T other[N];
    const Op op;
    const int t = threadIdx.x;
    PingPong<T, N> buffers(s, other);
    for (int stride = 1; stride < N; stride *= 2) {
      if (t < N) buffers.to[t] = t >= stride ? op(buffers.from[t - stride], buffers.from[t]) : buffers.from[t];
      buffers.swap();
    }
    buffers.finish();
  }
};

// Brent-Kung: an up-sweep builds a reduction tree in place (after it, s[2^k m - 1] holds the
// total of its 2^k-element block), then a down-sweep fills in the remaining prefixes from the
// root's children down. Only the nodes of the tree change, so one barrier per step suffices.
struct BrentKungTree : PlainLayout {
  template <class T, class Op, int N>
  __device__ static void inclusive(T* s) {
    const Op op;
    const int t = threadIdx.x;
    for (int stride = 1; stride < N; stride *= 2) {
      __syncthreads();
      const int i = (t + 1) * 2 * stride - 1;
      if (i < N) s[i] = op(s[i - stride], s[i]);
    }
    for (int stride = N / 4; stride >= 1; stride /= 2) {
      __syncthreads();
      const int i = (t + 1) * 2 * stride - 1;
      if (i + stride < N) s[i + stride] = op(s[i], s[i + stride]);
    }
    __syncthreads();
  }
};

// Brent-Kung with two buffers, for comparison: every step writes all N elements of the other
// buffer (the tree nodes updated, the rest copied), so it moves N elements per step where the
// in-place version touches only the active nodes, and it needs the same one barrier per step.
struct BrentKungDoubleBufferedTree : PlainLayout {
  template <class T, class Op, int N>
  __device__ static void inclusive(T* s) {
    __shared__ T other[N];
    const Op op;
    PingPong<T, N> buffers(s, other);
    auto step = [&](int stride, bool up) {
      for (int j = threadIdx.x; j < N; j += blockDim.x) {
        // up-sweep: node j = (m + 1) * 2 * stride - 1 takes its left child j - stride;
        // down-sweep: node j = (m + 1) * 2 * stride - 1 + stride takes the prefix at j - stride.
        const bool active = up ? (j + 1) % (2 * stride) == 0
                               : (j + 1) % (2 * stride) == stride && j + 1 > 2 * stride;
        buffers.to[j] = active ? op(buffers.from[j - stride], buffers.from[j]) : buffers.from[j];
      }
      buffers.swap();
    };
    for (int stride = 1; stride < N; stride *= 2) step(stride, true);
    for (int stride = N / 4; stride >= 1; stride /= 2) step(stride, false);
    buffers.finish();
  }
};

// Blelloch: the work-efficient exclusive scan. The up-sweep is Brent-Kung's; then the root is
// replaced by the identity and a down-sweep walks back: each node passes its prefix to its left
// child and (prefix (+) left child's sum) to its right child. The exclusive result becomes
// inclusive by combining each element's own value back in (kept in registers). With
// ConflictFree, element i lives at i + i/32: the power-of-two strides of the tree would
// otherwise send many threads of a warp to the same shared-memory bank.
template <bool ConflictFree>
struct BlellochTree {
  template <int N>
  static constexpr int kStorage = ConflictFree ? N + N / 32 : N;
  __device__ __forceinline__ static int slot(int i) { return ConflictFree ? i + (i >> 5) : i; }

  template <class T, class Op, int N>
  __device__ static void inclusive(T* s) {
    const Op op;
    const int t = threadIdx.x;
    const int threads = blockDim.x;
    __syncthreads();
    // N <= 2 * blockDim: each thread owns elements t and t + threads, where they exist.
    const T own_low = t < N ? s[slot(t)] : Op::template identity<T>();
    const T own_high = t + threads < N ? s[slot(t + threads)] : Op::template identity<T>();
    for (int stride = 1; stride < N; stride *= 2) {
      __syncthreads();
      const int i = (t + 1) * 2 * stride - 1;
      if (i < N) s[slot(i)] = op(s[slot(i - stride)], s[slot(i)]);
    }
    __syncthreads();
    if (t == 0) s[slot(N - 1)] = Op::template identity<T>();
    for (int stride = N / 2; stride >= 1; stride /= 2) {
      __syncthreads();
      const int i = (t + 1) * 2 * stride - 1;
      if (i < N) {
        const T left_sum = s[slot(i - stride)];
        s[slot(i - stride)] = s[slot(i)];             // left child: the parent's prefix
        s[slot(i)] = op(s[slot(i)], left_sum);        // right child: prefix, then the left sum
      }
    }
    __syncthreads();
    if (t < N) s[slot(t)] = op(s[slot(t)], own_low);  // exclusive -> inclusive
    if (t + threads < N) s[slot(t + threads)] = op(s[slot(t + threads)], own_high);
    __syncthreads();
  }
};

}  // namespace zoo
