#ifndef COINSDB_UTIL_CLIENTVERSION_H
#define COINSDB_UTIL_CLIENTVERSION_H

#include <string>

// What -version prints for bitcoind and bitcoin-cli, and the first log line.
inline constexpr const char* CLIENT_NAME = "coinsdb";
inline constexpr const char* CLIENT_VERSION = "0.1.0";
// The Bitcoin Core whose formats, options and RPC results coinsdb follows
// (the reference build in ../shared/reference).
inline constexpr const char* TRACKED_CORE_VERSION = "Bitcoin Core master b88bffe5 (v31.99)";

// "<name> <program> version v<version>\nFollows <core>.\n"
inline std::string FormatVersion(const std::string& program)
{
    return std::string{CLIENT_NAME} + " " + program + " version v" + CLIENT_VERSION + "\nFollows " + TRACKED_CORE_VERSION + ".\n";
}

#endif // COINSDB_UTIL_CLIENTVERSION_H
