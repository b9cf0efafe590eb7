// python/src/jax_handlers.hpp -- what jax_handlers.cpp gives module.cpp: the XLA FFI handlers by
// the names scan_zoo/_jax.py registers them under (jax.ffi.register_ffi_target).
#pragma once

namespace scan_zoo_python {

struct JaxHandler {
  const char* name;
  void* function;  // an XLA_FFI_Handler*, as jax.ffi takes it in a capsule
};
inline constexpr int kJaxHandlerCount = 3;
extern JaxHandler jax_handlers[kJaxHandlerCount];

}  // namespace scan_zoo_python
