#ifndef COINSDB_UTIL_CHECK_H
#define COINSDB_UTIL_CHECK_H

#include <cassert>

// Assume(): an internal expectation. Checked in debug builds, free in release
// builds. Use assert() instead where carrying on could corrupt data.
#ifdef NDEBUG
#define Assume(expr) (static_cast<void>(0))
#else
#define Assume(expr) assert(expr)
#endif

#endif // COINSDB_UTIL_CHECK_H
