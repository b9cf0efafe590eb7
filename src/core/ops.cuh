// ops.cuh -- the element types and associative operators every scan in the zoo is generic over.
//
// A scan needs an associative operator with an identity element. The zoo keeps the operator
// order straight everywhere (earlier elements on the left), so nothing relies on commutativity,
// even though sum, max and min happen to be commutative.
//
// The zoo is built on the library (include/scan_zoo/): its operators are the library's with a
// name for the command line, and every piece of scan_zoo::detail (tiles, warp scans,
// descriptors, look-backs, the tuned kernel) is reachable as zoo::<name>.
#pragma once

#include <scan_zoo/detail/core.cuh>
#include <scan_zoo/operators.cuh>

#include <cstdint>
#include <string>
#include <type_traits>

namespace zoo {

using namespace scan_zoo::detail;

inline const char* scan_kind_name(ScanKind kind) {
  return kind == ScanKind::Inclusive ? "inclusive" : "exclusive";
}

// ---------------------------------------------------------------------------------------------
// Operators: the library's, each with the name used on the command line and in output rows.
// ---------------------------------------------------------------------------------------------
struct Sum : scan_zoo::Plus {
  static constexpr const char* name = "sum";
};
struct Max : scan_zoo::Max {
  static constexpr const char* name = "max";
};
struct Min : scan_zoo::Min {
  static constexpr const char* name = "min";
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
