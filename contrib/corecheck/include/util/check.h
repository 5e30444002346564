#ifndef CORECHECK_UTIL_CHECK_H
#define CORECHECK_UTIL_CHECK_H

// Adapts: Core's util/check.h adds, beside Assume (which coinsdb has),
// Assert (always checked, returns its argument) and EnableFuzzDeterminism
// (false outside fuzz builds), both used by Core's test/util/random.cpp.

#include_next <util/check.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace corecheck {
template <typename T>
T&& AssertImpl(T&& value, const char* expr, const char* file, int line)
{
    if (!value) {
        std::fprintf(stderr, "%s:%d: Assertion `%s' failed.\n", file, line, expr);
        std::abort();
    }
    return std::forward<T>(value);
}
} // namespace corecheck

#define Assert(val) ::corecheck::AssertImpl((val), #val, __FILE__, __LINE__)

inline bool EnableFuzzDeterminism() { return false; }

#endif // CORECHECK_UTIL_CHECK_H
