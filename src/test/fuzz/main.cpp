// The libFuzzer entry points (-DBUILD_FUZZ=ON). One binary holds every
// target; the environment variable FUZZ names the one to run, so that a
// new target costs no extra link:
//   FUZZ=coins_cache_model build_fuzz/src/test/fuzz/fuzz CORPUS_DIR

#include <test/fuzz/fuzz.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

const FuzzTarget* g_target{nullptr};

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    const char* name = std::getenv("FUZZ");
    g_target = name ? FindFuzzTarget(name) : nullptr;
    if (!g_target) {
        std::fprintf(stderr, "Set FUZZ to one of:");
        for (const auto& target : AllFuzzTargets()) std::fprintf(stderr, " %.*s", int(target.name.size()), target.name.data());
        std::fprintf(stderr, "\n");
        std::exit(1);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // A failed FUZZ_CHECK escapes as an exception: libFuzzer reports the
    // abort that std::terminate raises as a crash and keeps the input.
    g_target->run({data, size});
    return 0;
}
