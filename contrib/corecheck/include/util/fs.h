#ifndef CORECHECK_UTIL_FS_H
#define CORECHECK_UTIL_FS_H

// Adapts: Core's util/fs.h. Core wraps std::filesystem::path to keep
// narrow-string conversions out of Windows builds; coinsdb's DBParams take
// std::filesystem::path, so fs:: here is std::filesystem plus Core's
// PathToString.

#include <filesystem>
#include <string>

namespace fs {
using namespace std::filesystem;
inline std::string PathToString(const path& p) { return p.string(); }
} // namespace fs

#endif // CORECHECK_UTIL_FS_H
