#ifndef COINSDB_UTIL_CHECK_H
#define COINSDB_UTIL_CHECK_H

#include <cassert>

// Assume(): an internal expectation. Checked in debug builds, free in the
// others. Use assert() (always on, see CMakeLists.txt) where carrying on could
// corrupt data.
#ifdef COINSDB_ASSUME_CHECKS
#define Assume(expr) assert(expr)
#else
#define Assume(expr) (static_cast<void>(0))
#endif

#endif // COINSDB_UTIL_CHECK_H
