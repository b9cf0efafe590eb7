// recurrence_maps.cuh -- what the linear recurrence's two binaries share (linear_recurrence and
// linear_recurrence_backward): their multipliers, and the map their CPU references scan.
#pragma once

#include <cstdint>

#include "../harness/reference.hpp"

namespace zoo {

// Multiplier i of the stream `seed`: mostly 1, some -1 (draws -8 .. -6 flip the sign), a few 0
// (which cut the chain), so that every state and every gradient stays a small integer and the
// checks are exact.
template <class T>
T recurrence_multiplier(std::uint64_t seed, std::int64_t i) {
  const int draw = input_value<int>(seed, i);  // in [-8, 8]
  return T(draw == 0 ? 0 : draw < -5 ? -1 : 1);
}

// The references' step x -> a x + b in double, and `head`: a line starts at (or within the range
// of) this map. Composed with the earlier map first; a later map's head discards what came
// before it.
struct HeadedMap {
  double a, b;
  bool head;
};
inline HeadedMap compose_restarting(HeadedMap earlier, HeadedMap later) {
  return later.head ? later : HeadedMap{earlier.a * later.a, later.a * earlier.b + later.b, earlier.head};
}

}  // namespace zoo
