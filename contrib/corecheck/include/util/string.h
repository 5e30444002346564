#ifndef CORECHECK_UTIL_STRING_H
#define CORECHECK_UTIL_STRING_H

// Adapts: Core's util/string.h, util::ToString (locale-independent
// conversion of a number to text).

#include <string>

namespace util {
template <typename T>
std::string ToString(const T& t)
{
    return std::to_string(t);
}
} // namespace util

#endif // CORECHECK_UTIL_STRING_H
