// tile_io.cuh -- moving a tile between global memory and a "blocked" register arrangement
// (thread t holds the Items consecutive elements t*Items .. t*Items + Items - 1), coalesced.
//
// Global memory wants the opposite, "striped" arrangement: consecutive threads touching
// consecutive addresses. The usual fix, used here, is a transpose through shared memory: the
// block reads the tile with 16-byte vectors striped across threads, writes it to shared memory,
// and each thread reads back its own consecutive run (and the reverse on the way out). The
// shared array has one pad slot per 32 elements so that a warp reading runs of Items elements
// (a power-of-two stride) hits 32 different banks. Two shortcuts skip the transpose: one element
// per thread, and exactly one 16-byte vector per thread, are already both blocked and coalesced.
// A partial (last) tile is read element by element, padded with a caller-given value.
#pragma once

#include <cstdint>

#include "vector_access.cuh"

namespace zoo {

template <class T, int Threads, int Items>
struct BlockedTile {
  static constexpr int kTileItems = Threads * Items;
  using Vec = VectorOf<T, 16>;
  static constexpr bool kOneVectorPerThread = Items == Vec::kCount;
  static constexpr bool kVectorizable = Items % Vec::kCount == 0;

  __device__ __forceinline__ static int padded(int i) { return i + i / 32; }

  __device__ static T* stage() {
    __shared__ T buffer[kTileItems + kTileItems / 32];
    return buffer;
  }

  __device__ __forceinline__ static bool vector_path(const T* tile, int valid) {
    return kVectorizable && valid == kTileItems &&
           reinterpret_cast<std::uintptr_t>(tile) % sizeof(typename Vec::Chunk) == 0;
  }

  __device__ static void load(const T* tile, int valid, T (&items)[Items], T pad) {
    const int t = threadIdx.x;
    if constexpr (Items == 1) {
      items[0] = t < valid ? tile[t] : pad;
      return;
    }
    if (kOneVectorPerThread && vector_path(tile, valid)) {
      const typename Vec::Chunk chunk = Vec::load(tile, t);
#pragma unroll
      for (int j = 0; j < Items; ++j) items[j] = chunk.item[j % Vec::kCount];
      return;
    }
    T* s = stage();
    if (vector_path(tile, valid)) {
      typename Vec::Chunk chunks[Items / Vec::kCount];
#pragma unroll
      for (int v = 0; v < Items / Vec::kCount; ++v) chunks[v] = Vec::load(tile, v * Threads + t);
#pragma unroll
      for (int v = 0; v < Items / Vec::kCount; ++v)
#pragma unroll
        for (int j = 0; j < Vec::kCount; ++j) s[padded((v * Threads + t) * Vec::kCount + j)] = chunks[v].item[j];
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int i = k * Threads + t;
        s[padded(i)] = i < valid ? tile[i] : pad;
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < Items; ++k) items[k] = s[padded(t * Items + k)];
    __syncthreads();  // the stage is free again
  }

  __device__ static void store(T* tile, int valid, const T (&items)[Items]) {
    const int t = threadIdx.x;
    if constexpr (Items == 1) {
      if (t < valid) tile[t] = items[0];
      return;
    }
    if (kOneVectorPerThread && vector_path(tile, valid)) {
      typename Vec::Chunk chunk;
#pragma unroll
      for (int j = 0; j < Vec::kCount; ++j) chunk.item[j] = items[j % Items];
      Vec::store(tile, t, chunk);
      return;
    }
    T* s = stage();
#pragma unroll
    for (int k = 0; k < Items; ++k) s[padded(t * Items + k)] = items[k];
    __syncthreads();
    if (vector_path(tile, valid)) {
#pragma unroll
      for (int v = 0; v < Items / Vec::kCount; ++v) {
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
