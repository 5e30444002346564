#ifndef COINSDB_UTIL_ARGS_H
#define COINSDB_UTIL_ARGS_H

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

// Command-line and bitcoin.conf options with Bitcoin Core's conventions:
//   -name=value, --name=value     set
//   -name                         set to "" (true for a boolean)
//   -noname                       set to "0"; -noname=0 sets "1"
//   conf file: name=value lines, # comments, [main]/[test]/[testnet4]/
//   [signet]/[regtest] sections, or section.name=value at the top.
// The command line wins over the conf file; a network section wins over
// the top of the file. Given twice, the last value wins on the command line
// and the first in a conf file, as upstream. Options flagged NETWORK_ONLY (ports, binds) at the
// top of the file apply to main only, as upstream.
//
// Only the node layer and the binaries read arguments: the core libraries
// get plain option structs (see node/*_args.cpp).
class ArgsManager
{
public:
    enum Flags : unsigned {
        NONE = 0,
        DEBUG_ONLY = 1 << 0,   // listed by -help-debug only
        NETWORK_ONLY = 1 << 1, // see above
        IGNORED = 1 << 2,      // accepted and logged as having no effect here
        CLI_ONLY = 1 << 3,     // marker only
    };

    // The values an integer option accepts: a whole decimal number (an
    // optional '-', digits, nothing else) from min to max.
    struct IntForm {
        int64_t min;
        int64_t max;
        // Ends "Invalid -<name> value '<value>': expected <expected>";
        // empty for "an integer from <min> to <max>".
        std::string expected;
        // Refused with upstream's "Invalid port specified in -<name>: '<value>'".
        bool port{false};

        // The forms of most count and seconds options: what the int their
        // readers cast to holds, from the smallest value the reader honours.
        static IntForm NonNegative() { return {.min = 0, .max = INT32_MAX, .expected = "", .port = false}; }
        static IntForm Positive() { return {.min = 1, .max = INT32_MAX, .expected = "", .port = false}; }
    };

    struct Option {
        std::string name; // without the dash
        std::string help_param; // e.g. "=<n>"
        std::string help;
        unsigned flags;
        std::string category;
        std::optional<IntForm> int_form; // set for integer options
    };

    void AddArg(const std::string& name_with_param, const std::string& help, unsigned flags, const std::string& category);
    // An integer option; see CheckIntArgs for when its values are checked.
    void AddIntArg(const std::string& name_with_param, const std::string& help, unsigned flags, const std::string& category, IntForm form);
    // A TCP port: an integer option from 1 to 65535.
    void AddPortArg(const std::string& name_with_param, const std::string& help, unsigned flags, const std::string& category);
    // Arguments this binary accepts but for which it has no subsystem.
    void AddIgnoredArg(const std::string& name, const std::string& why);

    // Returns false with error set on an unknown or malformed option.
    bool ParseParameters(int argc, const char* const argv[], std::string& error);
    // Reads the -conf file (relative paths are under the datadir), then the
    // files its includeconf lines name. A missing default file is fine; a
    // missing explicit or included one is an error.
    bool ReadConfigFiles(std::string& error);
    // Positional arguments (bitcoin-cli's method and params).
    const std::vector<std::string>& Positionals() const { return m_positionals; }

    // Network from -chain/-regtest/-testnet/-testnet4/-signet; error on conflicts.
    std::optional<std::string> GetChainTypeString(std::string& error) const;
    // Network section to read conf values from; set after choosing the chain.
    // The values are final then, so this also runs CheckIntArgs and throws
    // std::runtime_error with its message: a binary stops on a bad number
    // before it uses any option of its network.
    void SelectConfigNetwork(const std::string& network);
    // The first integer option (by name) whose value, the one GetArg
    // returns, its IntForm refuses, as an error naming the option and the
    // value; nullopt if none. -noname counts as 0.
    std::optional<std::string> CheckIntArgs() const;

    bool IsArgSet(const std::string& name) const;
    bool IsArgNegated(const std::string& name) const;
    std::string GetArg(const std::string& name, const std::string& fallback) const;
    std::optional<std::string> GetArg(const std::string& name) const;
    int64_t GetIntArg(const std::string& name, int64_t fallback) const;
    bool GetBoolArg(const std::string& name, bool fallback) const;
    std::vector<std::string> GetArgs(const std::string& name) const;
    void ForceSetArg(const std::string& name, const std::string& value);
    void SoftSetArg(const std::string& name, const std::string& value);

    // The data directory from -datadir (not created), or the default
    // $HOME/.coinsdb.
    std::filesystem::path GetDataDirBase() const;

    // Ignored options that were set, with the reason, to be logged once.
    std::vector<std::pair<std::string, std::string>> IgnoredArgsSet() const;
    // Conf-file keys that were not recognised (logged as warnings).
    const std::vector<std::string>& UnknownConfigKeys() const { return m_unknown_conf_keys; }
    // Other conf-file problems that do not stop start-up (logged as warnings).
    const std::vector<std::string>& ConfigWarnings() const { return m_config_warnings; }

    std::string GetHelpMessage(bool show_debug) const;
    const Option* FindOption(const std::string& name) const;

private:
    bool ParseConfigStream(std::istream& stream, const std::string& filepath, std::string& error);
    bool ReadIncludedConfigFiles(std::string& error);
    // The values of name from the first source that has any: forced, the
    // command line, the conf file's network section, then its top level.
    struct Values {
        std::vector<std::string> values;
        bool from_config{false};
    };
    Values Lookup(const std::string& name) const;
    // The value a single-valued option takes (possibly the negation mark).
    std::optional<std::string> SingleValue(const std::string& name) const;

    std::map<std::string, Option> m_options;
    std::map<std::string, std::string> m_ignored_reasons;
    std::map<std::string, std::vector<std::string>> m_command_line;
    std::map<std::string, std::vector<std::string>> m_forced;
    // section ("" = top level) -> name -> values
    std::map<std::string, std::map<std::string, std::vector<std::string>>> m_config;
    std::vector<std::string> m_positionals;
    std::vector<std::string> m_unknown_conf_keys;
    std::vector<std::string> m_config_warnings;
    std::string m_network;
};

// Interprets an option value as a boolean the way upstream does: "" is true,
// otherwise the number it starts with is (non-zero = true).
bool InterpretBool(const std::string& value);

// -chain, -regtest, -testnet, -testnet4 and -signet, which
// ArgsManager::GetChainTypeString reads; bitcoind and bitcoin-cli take them
// alike.
void RegisterChainOptions(ArgsManager& args);

// Paths in options are relative to the network's data directory.
std::filesystem::path AbsPathInDir(const std::filesystem::path& dir, const std::string& value);

#endif // COINSDB_UTIL_ARGS_H
