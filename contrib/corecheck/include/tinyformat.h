#ifndef CORECHECK_TINYFORMAT_H
#define CORECHECK_TINYFORMAT_H

// Adapts: Core's tinyformat.h (strprintf: printf-style formatting into a
// std::string), on {fmt}'s printf implementation, which coinsdb links.

#include <fmt/printf.h>

#include <string>
#include <utility>

template <typename... Args>
std::string strprintf(const char* format, Args&&... args)
{
    return fmt::sprintf(format, std::forward<Args>(args)...);
}

#endif // CORECHECK_TINYFORMAT_H
