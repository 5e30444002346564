#ifndef COINSDB_RPC_JSON_H
#define COINSDB_RPC_JSON_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

// JSON text the way Bitcoin Core's UniValue writes it, so that replies and
// bitcoin-cli output look like upstream's:
//   compact (indent 0): no whitespace at all;
//   pretty (indent n):  one member per line, n spaces per level, "key": value,
//                       and empty containers as "[\n]" / "{\n}";
//   strings: only '"', '\\' and control characters (and DEL) are escaped,
//            \b \f \n \r \t by name, the rest as \u00xx; other bytes as is;
//   doubles: 16 significant digits, like an ostream with setprecision(16);
//            NaN and infinities (not JSON) as null.
//
// Raw numbers: some numbers must keep their exact text, an amount of
// 0.00010000 BTC must not come out as 0.0001 or 1e-04. A raw number is a
// nlohmann binary value with subtype RAW_NUMBER_SUBTYPE whose bytes are the
// number's text; WriteJSON prints the text unquoted. nlohmann itself would
// serialise it as a {"bytes":...} object, so always write with WriteJSON.
constexpr std::uint64_t RAW_NUMBER_SUBTYPE{0x52};

// Throws std::invalid_argument when text is not a JSON number.
nlohmann::json JSONRawNumber(std::string_view text);
// The text of a raw number; nullopt for any other value.
std::optional<std::string> JSONRawNumberText(const nlohmann::json& value);
// Satoshis as a raw BTC number with exactly 8 decimals ("-1.50000000").
nlohmann::json ValueFromAmount(int64_t amount);

std::string WriteJSON(const nlohmann::json& value, int indent = 0);

// Parses JSON text, keeping every non-integer number (and every integer too
// large for 64 bits) as a raw number so that printing it again reproduces
// the text. nullopt when the text is not one JSON value.
std::optional<nlohmann::json> ParseJSONKeepNumbers(std::string_view text);

#endif // COINSDB_RPC_JSON_H
