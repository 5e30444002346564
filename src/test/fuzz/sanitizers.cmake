# -DBUILD_FUZZ=ON: every target of the tree gets libFuzzer's coverage
# instrumentation and AddressSanitizer + UndefinedBehaviorSanitizer, so that
# the fuzzer sees coverage inside the libraries and a memory error or UB
# anywhere stops the run with the input that caused it. Only clang ships
# libFuzzer (Debian: clang and libclang-rt-<version>-dev).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "BUILD_FUZZ needs clang: configure with -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang")
endif()
# -g: sanitizer reports with file and line. UB stops the run instead of
# being printed and passed over.
add_compile_options(-g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
add_link_options(-fsanitize=address,undefined)
