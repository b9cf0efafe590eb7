// ops.cuh -- the element types and associative operators every scan in the zoo is generic over.
//
// A scan needs an associative operator with an identity element. The zoo keeps the operator
// order straight everywhere (earlier elements on the left), so nothing relies on commutativity,
// even though sum, max and min happen to be commutative.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

namespace zoo {

enum class ScanKind { Inclusive, Exclusive };

template <class I>
__host__ __device__ constexpr I ceil_div(I a, I b) { return (a + b - 1) / b; }

// The elements of the tile of `tile_items` that starts at element `begin` of n: a whole tile, or
// what is left of n in the last one.
__host__ __device__ __forceinline__ int tile_extent(std::int64_t begin, std::int64_t n, std::int64_t tile_items) {
  return static_cast<int>(min(tile_items, n - begin));
}

inline const char* scan_kind_name(ScanKind kind) {
  return kind == ScanKind::Inclusive ? "inclusive" : "exclusive";
}

// ---------------------------------------------------------------------------------------------
// Operators. Each is a stateless functor with a name (used on the command line and in output
// rows) and an identity element for every element type.
// ---------------------------------------------------------------------------------------------
struct Sum {
  static constexpr const char* name = "sum";
  template <class T>
  __host__ __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (cuda::std::is_integral_v<T>) {
      // Integer sums wrap (two's complement). Doing the addition in the unsigned type makes the
      // wrap well defined in C++ instead of signed-overflow undefined behaviour.
      using U = cuda::std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
  template <class T>
  __host__ __device__ __forceinline__ static T identity() { return T(0); }
};

struct Max {
  static constexpr const char* name = "max";
  template <class T>
  __host__ __device__ __forceinline__ T operator()(T a, T b) const { return b > a ? b : a; }
  template <class T>
  __host__ __device__ __forceinline__ static T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity)
      return -cuda::std::numeric_limits<T>::infinity();
    else
      return cuda::std::numeric_limits<T>::lowest();
  }
};

struct Min {
  static constexpr const char* name = "min";
  template <class T>
  __host__ __device__ __forceinline__ T operator()(T a, T b) const { return b < a ? b : a; }
  template <class T>
  __host__ __device__ __forceinline__ static T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity)
      return cuda::std::numeric_limits<T>::infinity();
    else
      return cuda::std::numeric_limits<T>::max();
  }
};

// ---------------------------------------------------------------------------------------------
// Element types. `Wide` is the type the CPU reference accumulates in: a 64-bit integer for
// integers (then wrapped to the element width, which is exact because wrapping commutes with
// addition), double for floats. To offer a new type, add a TypeInfo and append it to AllTypes.
// A variant is built for DefaultTypes unless it names its own list (`using Types = ...`): every
// variant whose algorithm holds any element type names AllTypes (the hierarchical family, the
// reduce-then-scan, the sequential scan, the single-pass scans whose descriptor holds any value);
// one whose descriptor packs a 32-bit value beside its flag, ThirtyTwoBitTypes. Asked for a type
// it was not built for, a binary waives it (exit 3); `--help` lists what it was built for.
// ---------------------------------------------------------------------------------------------
template <class T>
struct TypeInfo;
template <>
struct TypeInfo<std::int32_t> {
  static constexpr const char* name = "int32";
  using Wide = std::int64_t;
};
template <>
struct TypeInfo<float> {
  static constexpr const char* name = "float32";
  using Wide = double;
};
template <>
struct TypeInfo<std::int64_t> {
  static constexpr const char* name = "int64";
  using Wide = std::int64_t;
};
template <>
struct TypeInfo<std::uint32_t> {
  static constexpr const char* name = "uint32";
  using Wide = std::uint64_t;
};
template <>
struct TypeInfo<std::uint64_t> {
  static constexpr const char* name = "uint64";
  using Wide = std::uint64_t;
};
template <>
struct TypeInfo<double> {
  static constexpr const char* name = "float64";
  using Wide = double;
};

template <class... Ts>
struct TypeList {};
template <class... Ts>
struct OpList {};

using AllTypes = TypeList<std::int32_t, float, std::int64_t, std::uint32_t, std::uint64_t, double>;
using DefaultTypes = TypeList<std::int32_t, float>;
using ThirtyTwoBitTypes = TypeList<std::int32_t, float, std::uint32_t>;
using AllOps = OpList<Sum, Max, Min>;

// "int32 float32": the names the command line accepts, for messages and --help.
template <class... Ts>
inline std::string names_of(TypeList<Ts...>) {
  std::string names;
  ((names += (names.empty() ? "" : " ") + std::string(TypeInfo<Ts>::name)), ...);
  return names;
}
template <class... Os>
inline std::string names_of(OpList<Os...>) {
  std::string names;
  ((names += (names.empty() ? "" : " ") + std::string(Os::name)), ...);
  return names;
}
// From a name on the command line to a type: contains<T>(List{}) says whether T is in the list;
// with_type / with_op call fn(T{}) / fn(Op{}) for the one whose name matches.
template <class T, class... Ts>
constexpr bool contains(TypeList<Ts...>) { return (std::is_same_v<T, Ts> || ...); }

template <class Fn, class... Ts>
void with_type(const std::string& name, TypeList<Ts...>, Fn&& fn) {
  ((name == TypeInfo<Ts>::name ? (fn(Ts{}), 0) : 0), ...);
}
template <class Fn, class... Os>
void with_op(const std::string& name, OpList<Os...>, Fn&& fn) {
  ((name == Os::name ? (fn(Os{}), 0) : 0), ...);
}

template <class List>
inline bool is_known_name(const std::string& name, List list) {
  return (" " + names_of(list) + " ").find(" " + name + " ") != std::string::npos;
}

}  // namespace zoo
