#ifndef COINSDB_RPC_JSON_H
#define COINSDB_RPC_JSON_H

#include <nlohmann/json.hpp>

#include <cstddef>
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

// A value's type as Bitcoin Core names it in type errors: null, bool,
// number (raw numbers too), string, array, object.
std::string JSONTypeName(const nlohmann::json& value);
// Core's text for a value of the wrong type: "JSON value of type <actual> is
// not of expected type <expected>", or nullopt when e is not the "type must
// be X, but is Y" error that nlohmann's get<T>() throws.
std::optional<std::string> JSONTypeErrorMessage(const nlohmann::json::type_error& e);

// Recursive, one level per nesting level: give it values that ParseJSON
// read (at most MAX_JSON_DEPTH deep) or that the program built itself.
std::string WriteJSON(const nlohmann::json& value, int indent = 0);

// Bitcoin Core's UniValue reader refuses text that nests arrays and objects
// deeper than this, and so does ParseJSON. It stops reading as soon as the
// text goes deeper, so no parsed value is deeper either: the recursive code
// that walks values (WriteJSON, nlohmann's copy constructor) never meets a
// depth a client chose.
constexpr size_t MAX_JSON_DEPTH{512};

// A name repeated in one object is refused too (RFC 8259 leaves its meaning
// open): readers disagree on which value counts, so a proxy that checks the
// last "method" and a server that runs the first would disagree on what was
// called.
struct JSONParseError {
    enum class Kind {
        SYNTAX,        // not exactly one JSON value
        TOO_DEEP,      // arrays and objects nested deeper than MAX_JSON_DEPTH
        DUPLICATE_KEY, // an object with a name twice, at any depth
    };
    Kind kind{Kind::SYNTAX};
    std::string key; // the repeated name, for DUPLICATE_KEY
};

// What a non-integer number (or an integer too large for 64 bits) becomes.
enum class JSONNumbers {
    DOUBLE,    // a double, what RPC handlers expect
    KEEP_TEXT, // a raw number, so that printing it again reproduces the text
};

// Parses one JSON value without recursion. nullopt on refusal, with the
// reason in *error if given.
std::optional<nlohmann::json> ParseJSON(std::string_view text, JSONNumbers numbers, JSONParseError* error = nullptr);
// ParseJSON with JSONNumbers::KEEP_TEXT.
std::optional<nlohmann::json> ParseJSONKeepNumbers(std::string_view text);

#endif // COINSDB_RPC_JSON_H
