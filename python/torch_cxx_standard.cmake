# torch_cxx_standard(<torch root> <variable>): the C++ standard torch's headers ask of the code that
# includes them, 17 or 20, read from ATen.h, whose #error names the oldest __cplusplus it takes:
# C++17 in torch 2.11 (the GPU machines'), C++20 in later releases (2.15 among them), where a
# C++17 compile of any torch header fails, and with it the whole build. Read from the header
# rather than guessed from the version, so that a torch built from source is read as it is.
# (python/CMakeLists.txt, for scan_zoo._torch_kernels; tests/test_build.py runs it on two such
# headers.)
function(torch_cxx_standard torch_root variable)
  file(READ "${torch_root}/include/ATen/ATen.h" aten_header)
  string(FIND "${aten_header}" "__cplusplus < 202002L" wants_cxx20)
  if(wants_cxx20 EQUAL -1)
    set(${variable} 17 PARENT_SCOPE)
  else()
    set(${variable} 20 PARENT_SCOPE)
  endif()
endfunction()
