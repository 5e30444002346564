#ifndef CORECHECK_UTIL_BYTE_UNITS_H
#define CORECHECK_UTIL_BYTE_UNITS_H

// Adapts: Core's util/byte_units.h, the _MiB and _GiB literals (bytes as
// size_t; too large a value is refused at compile time here, where Core's
// throws std::overflow_error).

#include <cstddef>
#include <limits>

consteval size_t operator""_MiB(unsigned long long mebibytes)
{
    if (mebibytes > (std::numeric_limits<size_t>::max() >> 20)) throw "MiB value too large for size_t";
    return static_cast<size_t>(mebibytes) << 20;
}

consteval size_t operator""_GiB(unsigned long long gibibytes)
{
    if (gibibytes > (std::numeric_limits<size_t>::max() >> 30)) throw "GiB value too large for size_t";
    return static_cast<size_t>(gibibytes) << 30;
}

#endif // CORECHECK_UTIL_BYTE_UNITS_H
