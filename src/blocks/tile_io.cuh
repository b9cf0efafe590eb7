// tile_io.cuh -- moving a tile between global memory and a "blocked" register arrangement
// (thread t holds the Items consecutive elements t*Items .. t*Items + Items - 1), coalesced.
//
// Global memory wants the opposite, "striped" arrangement: consecutive threads touching
// consecutive addresses. The usual fix, used here, is a transpose through shared memory: the
// block reads the tile with 16-byte vectors striped across threads, writes it to shared memory,
// and each thread reads back its own consecutive run (and the reverse on the way out). The shared
// array has one pad slot per 32 elements so that a warp reading runs of Items elements (a
// power-of-two stride) hits 32 different banks. Two shortcuts skip the transpose: one
// element per thread, and exactly one vector per thread, are already both blocked and coalesced.
// A partial (last) tile is read element by element, padded with a caller-given value.
//
// Loading is two steps: fetch() issues the striped global loads into registers and returns at
// once; arrange() waits for them and transposes them into the blocked arrangement. load() is the
// two back to back. The coarsened tile's steps (tile_policies.cuh) use them apart, fetch() as its
// load step and arrange() at the start of its scan step, as the tile scan did before it became
// steps: with load() in the load step, nvcc 13.0 scheduled those kernels differently (sm_90;
// bench/NOTES.md, "Tile policies as steps, and the grid layer").
#pragma once

#include <cstdint>

#include <scan_zoo/detail/vector_access.cuh>

namespace zoo {

// threadIdx.x, read so that the compiler cannot reuse an earlier read: every shared-memory offset
// of the transpose (t * Items + k + (t * Items + k) / 32 and its striped twin) is then computed
// where it is used, not computed once and kept in registers. With plain threadIdx.x, nvcc 13.0
// keeps them (sm_90): the 128 x 24 look-back tile's kernels grow from 48 to 72 registers, 10
// blocks a SM become 7, and the look-back scans slow down at large N (bench/NOTES.md, "Tile
// policies as steps, and the grid layer").
__device__ __forceinline__ int opaque_thread_index() {
  int t;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t));
  return t;
}

template <class T, int Threads, int Items>
struct BlockedTile {
  static constexpr int kTileItems = Threads * Items;
  static constexpr int kVectorBytes = 16;
  using Vec = VectorOf<T, kVectorBytes>;
  static constexpr bool kVectorizable = Items % Vec::kCount == 0;  // else always element by element
  static constexpr int kVectors = Items / Vec::kCount;
  static constexpr bool kOneVectorPerThread = Items == Vec::kCount;

  // A tile in flight: each thread's Items elements as they came from global memory, striped.
  // Vector path: raw[v * kCount + j] is element (v * Threads + t) * kCount + j of the tile;
  // element path (partial tiles): raw[k] is element k * Threads + t. With one-element vectors
  // the two coincide.
  struct Fetched {
    T raw[Items];
    bool vectorized;
  };

  __device__ __forceinline__ static int padded(int i) { return i + i / 32; }

  __device__ static T* stage() {
    __shared__ T buffer[kTileItems + kTileItems / 32];
    return buffer;
  }

  __device__ __forceinline__ static bool vector_path(const T* tile, int valid) {
    return kVectorizable && valid == kTileItems && reinterpret_cast<std::uintptr_t>(tile) % kVectorBytes == 0;
  }

  __device__ static Fetched fetch(const T* tile, int valid, T pad) {
    const int t = opaque_thread_index();
    Fetched fetched;
    fetched.vectorized = vector_path(tile, valid);
    if (kVectorizable && fetched.vectorized) {
#pragma unroll
      for (int v = 0; v < kVectors; ++v) {
        const typename Vec::Chunk chunk = Vec::load(tile, v * Threads + t);
#pragma unroll
        for (int j = 0; j < Vec::kCount; ++j) fetched.raw[v * Vec::kCount + j] = chunk.item[j];
      }
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int i = k * Threads + t;
        fetched.raw[k] = i < valid ? tile[i] : pad;
      }
    }
    return fetched;
  }

  __device__ static void arrange(const Fetched& fetched, T (&items)[Items]) {
    const int t = opaque_thread_index();
    if (Items == 1 || (kOneVectorPerThread && fetched.vectorized)) {  // already blocked
#pragma unroll
      for (int k = 0; k < Items; ++k) items[k] = fetched.raw[k];
      return;
    }
    T* s = stage();
    if (fetched.vectorized) {
#pragma unroll
      for (int v = 0; v < kVectors; ++v)
#pragma unroll
        for (int j = 0; j < Vec::kCount; ++j)
          s[padded((v * Threads + t) * Vec::kCount + j)] = fetched.raw[v * Vec::kCount + j];
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) s[padded(k * Threads + t)] = fetched.raw[k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < Items; ++k) items[k] = s[padded(t * Items + k)];
    __syncthreads();  // the stage is free again
  }

  __device__ static void load(const T* tile, int valid, T (&items)[Items], T pad) {
    arrange(fetch(tile, valid, pad), items);
  }

  __device__ static void store(T* tile, int valid, const T (&items)[Items]) {
    const int t = opaque_thread_index();
    if constexpr (Items == 1) {
      if (t < valid) tile[t] = items[0];
      return;
    }
    if (kOneVectorPerThread && vector_path(tile, valid)) {
      typename Vec::Chunk chunk;
#pragma unroll
      for (int j = 0; j < Vec::kCount; ++j) chunk.item[j] = items[j];
      Vec::store(tile, t, chunk);
      return;
    }
    T* s = stage();
#pragma unroll
    for (int k = 0; k < Items; ++k) s[padded(t * Items + k)] = items[k];
    __syncthreads();
    if (vector_path(tile, valid)) {
#pragma unroll
      for (int v = 0; v < kVectors; ++v) {
        typename Vec::Chunk chunk;
#pragma unroll
        for (int j = 0; j < Vec::kCount; ++j) chunk.item[j] = s[padded((v * Threads + t) * Vec::kCount + j)];
        Vec::store(tile, v * Threads + t, chunk);
      }
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int i = k * Threads + t;
        if (i < valid) tile[i] = s[padded(i)];
      }
    }
    __syncthreads();  // the stage is free again
  }
};

}  // namespace zoo
