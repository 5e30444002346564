#ifndef COINSDB_RPC_AUTH_H
#define COINSDB_RPC_AUTH_H

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

// Cookie authentication: when no -rpcpassword is configured, the node writes
// "__cookie__:<64 hex digits>" (32 random bytes, no newline) to
// <datadir>/<network>/.cookie, readable by the owner only, and deletes it at
// shutdown; bitcoin-cli reads it from the same place.
inline constexpr std::string_view COOKIE_AUTH_USER{"__cookie__"};

// Writes a fresh cookie through a temporary file and a rename, so a reader
// never sees a half-written one, with mode 0600. Returns false (and logs
// why) if the file cannot be written. credentials_out gets "user:password".
bool GenerateAuthCookie(const std::filesystem::path& cookie_file, std::string& credentials_out);
// The first line of the cookie file; nullopt if it cannot be read.
std::optional<std::string> ReadAuthCookie(const std::filesystem::path& cookie_file);
// Removes the file; a missing file is not an error.
void DeleteAuthCookie(const std::filesystem::path& cookie_file);

// RFC 4648 base64 with padding, as in an "Authorization: Basic" header.
std::string EncodeBase64(std::string_view data);
// Strict: nullopt unless the input is whole groups of four valid characters
// with correct padding.
std::optional<std::string> DecodeBase64(std::string_view text);

// Compares a secret without an early exit, so the time taken does not tell
// an attacker how many leading bytes they guessed right.
bool TimingResistantEqual(std::string_view a, std::string_view b);

#endif // COINSDB_RPC_AUTH_H
