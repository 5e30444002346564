#ifndef COINSDB_RPC_HELP_H
#define COINSDB_RPC_HELP_H

// An RPC method described as data, as upstream's RPCHelpMan does: its
// arguments, its results and its examples. From the one description come
// the help text, laid out as Bitcoin Core lays out its own, the usage line
// that "help" lists, the argument names for named calls, and the type check
// every call passes before the handler runs.
//
// The help text:
//
//   <usage line>                         getblockheader "blockhash" ( verbose )
//   (blank)
//   <description>
//   (blank)
//   Arguments:                           only when there are arguments
//   1. blockhash    (string, required) The block hash
//   2. verbose      (boolean, optional, default=true) ...
//   (blank)
//   Named Arguments:                     for an options object's members
//   rollback     (string or numeric, optional) ...
//   (blank)
//   Result (<condition>):                "Result:" when there is one result
//   {                     (json object)
//     "hash" : "hex",     (string) ...
//     ...
//   }
//   (blank)
//   Examples:
//   > bitcoin-cli getblockheader "<hash>"
//   > curl --user myusername --data-binary '{"jsonrpc": "2.0", ...}' ...
//
// In "Arguments" the descriptions start four spaces after the longest
// name. In a result, the JSON skeleton is on the left and each line's type
// and description start four spaces after its longest line, counted with
// the comma every member but the last carries.

#include <rpc/request.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

enum class RPCArgType {
    STR,        // "string", shown quoted in the usage line
    STR_HEX,    // "string" of hex digits
    NUM,        // "numeric"
    BOOL,       // "boolean"
    STR_OR_NUM, // "string or numeric": a block hash or a height
    OPTIONS,    // "json object" whose members are named arguments of their own
    ARR,        // "json array" of the one element in members, shown once then "..."
};

struct RPCArg {
    enum class Need {
        REQUIRED,
        OPTIONAL, // may be left out or null; see default_text
    };
    std::string name;
    RPCArgType type;
    Need need;
    // What an optional argument means when left out, shown as
    // "default=<text>"; empty shows plain "optional".
    std::string default_text;
    std::string description;
    // OPTIONS: its members, listed under "Named Arguments". ARR: its
    // element (name and description), shown inside the argument's [ ].
    std::vector<RPCArg> members{};
    // Accepted but not shown (upstream's stop takes a hidden "wait").
    bool hidden{false};
};

struct RPCResult {
    enum class Type {
        OBJ,      // {                 (json object)
        ARR,      // [                 (json array), then its element and "..."
        OBJ_DYN,  // {                 (json object) with keys chosen at run time: one shown, then "..."
        STR,      // "str"             (string)
        STR_HEX,  // "hex"             (string)
        NUM,      // n                 (numeric)
        NUM_TIME, // xxx               (numeric), a UNIX time
        AMOUNT,   // n                 (numeric), in BTC
        BOOL,     // true|false        (boolean)
        NONE,     // null              (json null)
    };
    Type type;
    // The member's name inside an object; empty at the top and in arrays.
    std::string key;
    std::string description;
    // OBJ: the members; ARR and OBJ_DYN: the one element (OBJ_DYN: with an
    // example key), shown once and followed by "...".
    std::vector<RPCResult> inner{};
    // A member that is not always there.
    bool optional{false};
};

// One shape of result; several when the shape depends on the arguments.
struct RPCResults {
    // Shown as "Result (<condition>):"; empty for a method with one result.
    std::string condition;
    RPCResult result;
};

class RPCHelp
{
public:
    std::string name;
    std::string description;
    std::vector<RPCArg> args;
    std::vector<RPCResults> results;
    // Lines of "Examples:", made with HelpExampleCli and HelpExampleRpc.
    std::string examples;

    // The first line: the name, then the arguments, optional ones in "( )".
    std::string Usage() const;
    std::string ToString() const;

    // Every argument's name, hidden ones too, in order (named calls).
    std::vector<std::string> ArgNames() const;
    // The OPTIONS argument's members, which named calls may give alone.
    NamedOptions Options() const;

    // Upstream's checks before the handler runs. Too few or too many
    // arguments: std::runtime_error with the help text (RPC_MISC_ERROR).
    // A required argument that is null, or one of the wrong type:
    // JSONRPCError RPC_TYPE_ERROR, "Wrong type passed:" and an object of
    // "Position <n> (<name>)": "JSON value of type <actual> is not of
    // expected type <expected>" for each.
    void CheckParams(const nlohmann::json& params) const;
};

// "> bitcoin-cli <method> <args>\n"
std::string HelpExampleCli(const std::string& method, const std::string& args);
// "> bitcoin-cli -named <method> <args>\n"
std::string HelpExampleCliNamed(const std::string& method, const std::string& args);
// The same call as curl sends it, JSON-RPC 2.0 to the default mainnet port;
// args is the text inside the params array.
std::string HelpExampleRpc(const std::string& method, const std::string& args);

#endif // COINSDB_RPC_HELP_H
