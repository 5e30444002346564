#include <util/args.h>

#include <util/strencodings.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace {

// Stored for -noname; reads back as "0" and clears earlier values of a
// multi-value option.
const std::string NEGATED{"\x01negated"};

const std::set<std::string> NETWORK_SECTIONS{"main", "test", "testnet4", "signet", "regtest"};

std::string Trim(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

// "-name=<param>" -> "name".
std::string OptionName(const std::string& name_with_param)
{
    const auto eq = name_with_param.find('=');
    return name_with_param.substr(1, eq == std::string::npos ? std::string::npos : eq - 1);
}

// Splits "-name=value" into name (no dashes) and value; handles -noname.
struct ParsedKey {
    std::string name;
    std::string value;
    bool negated{false};
};

ParsedKey ParseKey(std::string key, std::optional<std::string> value)
{
    ParsedKey parsed;
    parsed.name = std::move(key);
    parsed.value = value.value_or("");
    if (parsed.name.rfind("no", 0) == 0) {
        parsed.negated = true;
        parsed.name = parsed.name.substr(2);
    }
    return parsed;
}

// -noname (or -noname=1) replaces earlier values with the negation marker;
// -noname=0 means -name=1.
void StoreValue(std::vector<std::string>& values, const ParsedKey& parsed)
{
    if (!parsed.negated) {
        values.push_back(parsed.value);
    } else if (InterpretBool(parsed.value)) {
        values.assign({NEGATED});
    } else {
        values.push_back("1");
    }
}

} // namespace

bool InterpretBool(const std::string& value)
{
    if (value.empty()) return true;
    return std::atoll(value.c_str()) != 0;
}

void RegisterChainOptions(ArgsManager& args)
{
    const std::string chain{"Chain selection options"};
    args.AddArg("-chain=<chain>", "Use the chain <chain> (default: main). Allowed values: main, test, testnet4, signet, regtest", ArgsManager::NONE, chain);
    args.AddArg("-regtest", "Use the regression test chain, as -chain=regtest does (default: 0)", ArgsManager::NONE, chain);
    args.AddArg("-testnet", "Use the testnet3 chain, as -chain=test does (default: 0)", ArgsManager::NONE, chain);
    args.AddArg("-testnet4", "Use the testnet4 chain, as -chain=testnet4 does (default: 0)", ArgsManager::NONE, chain);
    args.AddArg("-signet", "Use the signet chain, as -chain=signet does (default: 0)", ArgsManager::NONE, chain);
}

std::filesystem::path AbsPathInDir(const std::filesystem::path& dir, const std::string& value)
{
    std::filesystem::path path{value};
    return path.is_absolute() ? path : dir / path;
}

void ArgsManager::AddArg(const std::string& name_with_param, const std::string& help, unsigned flags, const std::string& category)
{
    const auto eq = name_with_param.find('=');
    const std::string name = OptionName(name_with_param);
    const std::string param = eq == std::string::npos ? "" : name_with_param.substr(eq);
    m_options[name] = Option{name, param, help, flags, category, std::nullopt};
}

void ArgsManager::AddIntArg(const std::string& name_with_param, const std::string& help, unsigned flags, const std::string& category, IntForm form)
{
    AddArg(name_with_param, help, flags, category);
    m_options[OptionName(name_with_param)].int_form = std::move(form);
}

void ArgsManager::AddPortArg(const std::string& name_with_param, const std::string& help, unsigned flags, const std::string& category)
{
    AddIntArg(name_with_param, help, flags, category, IntForm{.min = 1, .max = 65535, .expected = "", .port = true});
}

void ArgsManager::AddIgnoredArg(const std::string& name, const std::string& why)
{
    AddArg(name, "Accepted for compatibility; no effect in coinsdb (" + why + ")", IGNORED | DEBUG_ONLY, "Ignored options");
    m_ignored_reasons[OptionName(name)] = why;
}

const ArgsManager::Option* ArgsManager::FindOption(const std::string& name) const
{
    auto it = m_options.find(name);
    return it == m_options.end() ? nullptr : &it->second;
}

bool ArgsManager::ParseParameters(int argc, const char* const argv[], std::string& error)
{
    m_command_line.clear();
    m_positionals.clear();
    for (int i = 1; i < argc; ++i) {
        std::string arg{argv[i]};
        if (!m_positionals.empty() || arg.empty() || arg[0] != '-') {
            m_positionals.push_back(arg);
            continue;
        }
        if (arg == "-" || arg == "--") {
            error = "Invalid parameter " + arg;
            return false;
        }
        arg.erase(0, arg.rfind("--", 0) == 0 ? 2 : 1);
        std::optional<std::string> value;
        if (const auto eq = arg.find('='); eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg.resize(eq);
        }
        ParsedKey parsed = ParseKey(arg, value);
        const Option* option = FindOption(parsed.name);
        if (!option && !parsed.negated) {
            error = "Invalid parameter -" + parsed.name;
            return false;
        }
        if (!option) {
            // "-noexample" where "noexample" itself is not an option either.
            error = "Invalid parameter -no" + parsed.name;
            return false;
        }
        // Only a conf file may include others, as upstream (-noincludeconf is fine).
        if (parsed.name == "includeconf" && !parsed.negated) {
            error = "-includeconf cannot be used from commandline; -includeconf=\"" + value.value_or("") + "\"";
            return false;
        }
        StoreValue(m_command_line[parsed.name], parsed);
    }
    return true;
}

bool ArgsManager::ParseConfigStream(std::istream& stream, const std::string& filepath, std::string& error)
{
    std::string section;
    std::string line;
    int line_number = 0;
    while (std::getline(stream, line)) {
        ++line_number;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        line = Trim(line);
        if (line.empty()) continue;
        if (line.front() == '[' && line.back() == ']') {
            section = line.substr(1, line.size() - 2);
            if (!NETWORK_SECTIONS.contains(section)) {
                m_unknown_conf_keys.push_back("[" + section + "] (section)");
            }
            continue;
        }
        const auto eq = line.find('=');
        if (eq == std::string::npos) {
            error = "parse error on line " + std::to_string(line_number) + " of " + filepath + ": " + line +
                    (line.rfind("no", 0) == 0 ? ", if you intended to specify a negated option, use " + line + "=1 instead" : "");
            return false;
        }
        std::string key = Trim(line.substr(0, eq));
        const std::string value = Trim(line.substr(eq + 1));
        std::string key_section = section;
        if (const auto dot = key.find('.'); dot != std::string::npos && section.empty()) {
            key_section = key.substr(0, dot);
            key = key.substr(dot + 1);
        }
        ParsedKey parsed = ParseKey(key, value);
        if (!FindOption(parsed.name)) {
            m_unknown_conf_keys.push_back(key);
            continue;
        }
        StoreValue(m_config[key_section][parsed.name], parsed);
    }
    return true;
}

bool ArgsManager::ReadConfigFiles(std::string& error)
{
    m_config.clear();
    m_unknown_conf_keys.clear();
    m_config_warnings.clear();
    const bool explicit_conf = IsArgSet("conf");
    std::filesystem::path conf_path = GetArg("conf", "bitcoin.conf");
    if (conf_path.is_relative()) conf_path = GetDataDirBase() / conf_path;
    std::ifstream stream{conf_path};
    if (!stream.good()) {
        if (explicit_conf) {
            error = "specified config file \"" + conf_path.string() + "\" could not be opened.";
            return false;
        }
        return true;
    }
    if (!ParseConfigStream(stream, conf_path.string(), error)) return false;
    return ReadIncludedConfigFiles(error);
}

// includeconf=<file> lines of the chain's section, then of the top of the
// file, name more files to read, in that order, relative to the datadir.
// They are read once: an includeconf line inside an included file is
// ignored with a warning, as upstream does.
bool ArgsManager::ReadIncludedConfigFiles(std::string& error)
{
    std::string chain_error;
    const auto chain = GetChainTypeString(chain_error);
    // A chain conflict is reported by the caller, with its own message.
    if (!chain) return true;
    const auto names_in = [&](const std::string& section) {
        std::vector<std::string> names;
        if (auto sec = m_config.find(section); sec != m_config.end()) {
            if (auto it = sec->second.find("includeconf"); it != sec->second.end()) {
                for (const auto& name : it->second) {
                    if (name != NEGATED) names.push_back(name);
                }
            }
        }
        return names;
    };
    const auto chain_before = names_in(*chain);
    const auto top_before = names_in("");
    std::vector<std::string> includes = chain_before;
    includes.insert(includes.end(), top_before.begin(), top_before.end());

    for (const std::string& name : includes) {
        std::filesystem::path path{name};
        if (path.is_relative()) path = GetDataDirBase() / path;
        std::ifstream stream{path};
        if (!stream.good()) {
            error = "Failed to include configuration file " + path.string();
            return false;
        }
        if (!ParseConfigStream(stream, path.string(), error)) return false;
    }
    // Whatever the included files added to the lists was never read.
    for (const auto& [section, before] : {std::pair{*chain, chain_before.size()}, std::pair{std::string{}, top_before.size()}}) {
        const auto after = names_in(section);
        for (size_t i = before; i < after.size(); ++i) {
            m_config_warnings.push_back("-includeconf cannot be used from included files; ignoring -includeconf=" + after[i]);
        }
    }
    return true;
}

// Options are stored by name without the dash; callers may spell them
// either way, "dbcache" or, as Bitcoin Core's callers do, "-dbcache".
static std::string WithoutDash(const std::string& name) { return name.starts_with('-') ? name.substr(1) : name; }

ArgsManager::Values ArgsManager::Lookup(const std::string& name_either_way) const
{
    const std::string name = WithoutDash(name_either_way);
    if (auto it = m_forced.find(name); it != m_forced.end()) return {it->second, false};
    if (auto it = m_command_line.find(name); it != m_command_line.end()) return {it->second, false};
    if (!m_network.empty()) {
        if (auto sec = m_config.find(m_network); sec != m_config.end()) {
            if (auto it = sec->second.find(name); it != sec->second.end()) return {it->second, true};
        }
    }
    const Option* option = FindOption(name);
    const bool top_level_applies = !(option && (option->flags & NETWORK_ONLY)) || m_network.empty() || m_network == "main";
    if (top_level_applies) {
        if (auto sec = m_config.find(""); sec != m_config.end()) {
            if (auto it = sec->second.find(name); it != sec->second.end()) return {it->second, true};
        }
    }
    return {};
}

std::optional<std::string> ArgsManager::SingleValue(const std::string& name) const
{
    const Values found = Lookup(name);
    if (found.values.empty()) return std::nullopt;
    // On the command line the last value wins; in a conf file the first
    // does, as upstream. A negation clears what came before it in either.
    return found.from_config ? found.values.front() : found.values.back();
}

void ArgsManager::SelectConfigNetwork(const std::string& network)
{
    m_network = network;
    if (auto error = CheckIntArgs()) throw std::runtime_error{*error};
}

std::optional<std::string> ArgsManager::CheckIntArgs() const
{
    for (const auto& [name, option] : m_options) {
        if (!option.int_form) continue;
        const auto value = GetArg(name);
        if (!value) continue;
        const IntForm& form = *option.int_form;
        const auto number = ParseInt64(*value);
        if (number && *number >= form.min && *number <= form.max) continue;
        if (form.port) return "Invalid port specified in -" + name + ": '" + *value + "'";
        const std::string expected = form.expected.empty()
                                         ? "an integer from " + std::to_string(form.min) + " to " + std::to_string(form.max)
                                         : form.expected;
        return "Invalid -" + name + " value '" + *value + "': expected " + expected;
    }
    return std::nullopt;
}

bool ArgsManager::IsArgSet(const std::string& name) const { return !Lookup(name).values.empty(); }

bool ArgsManager::IsArgNegated(const std::string& name) const { return SingleValue(name) == NEGATED; }

std::optional<std::string> ArgsManager::GetArg(const std::string& name) const
{
    const auto value = SingleValue(name);
    if (!value) return std::nullopt;
    return *value == NEGATED ? "0" : *value;
}

std::string ArgsManager::GetArg(const std::string& name, const std::string& fallback) const
{
    return GetArg(name).value_or(fallback);
}

int64_t ArgsManager::GetIntArg(const std::string& name, int64_t fallback) const
{
    const auto value = GetArg(name);
    if (!value) return fallback;
    return std::atoll(value->c_str());
}

bool ArgsManager::GetBoolArg(const std::string& name, bool fallback) const
{
    const auto value = GetArg(name);
    return value ? InterpretBool(*value) : fallback;
}

std::vector<std::string> ArgsManager::GetArgs(const std::string& name) const
{
    std::vector<std::string> out;
    for (const auto& value : Lookup(name).values) {
        if (value == NEGATED) {
            out.clear();
        } else {
            out.push_back(value);
        }
    }
    return out;
}

void ArgsManager::ForceSetArg(const std::string& name, const std::string& value) { m_forced[WithoutDash(name)] = {value}; }

void ArgsManager::SoftSetArg(const std::string& name, const std::string& value)
{
    if (!IsArgSet(name)) ForceSetArg(name, value);
}

std::optional<std::string> ArgsManager::GetChainTypeString(std::string& error) const
{
    std::vector<std::string> chosen;
    if (GetBoolArg("regtest", false)) chosen.push_back("regtest");
    if (GetBoolArg("testnet", false)) chosen.push_back("test");
    if (GetBoolArg("testnet4", false)) chosen.push_back("testnet4");
    if (GetBoolArg("signet", false)) chosen.push_back("signet");
    if (auto chain = GetArg("chain")) chosen.push_back(*chain);
    std::ranges::sort(chosen);
    chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
    if (chosen.size() > 1) {
        error = "Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one.";
        return std::nullopt;
    }
    const std::string chain = chosen.empty() ? "main" : chosen.front();
    if (!NETWORK_SECTIONS.contains(chain)) {
        error = "Invalid chain type " + chain + ": use one of main, test, testnet4, signet, regtest";
        return std::nullopt;
    }
    return chain;
}

std::filesystem::path ArgsManager::GetDataDirBase() const
{
    if (auto dir = GetArg("datadir"); dir && !dir->empty()) return std::filesystem::absolute(*dir);
    const char* home = std::getenv("HOME");
    // Not ~/.bitcoin: that is Bitcoin Core's, and coinsdb must never open
    // another program's data without being told to.
    return std::filesystem::path{home && *home ? home : "/"} / ".coinsdb";
}

std::vector<std::pair<std::string, std::string>> ArgsManager::IgnoredArgsSet() const
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [name, why] : m_ignored_reasons) {
        if (IsArgSet(name)) out.emplace_back(name, why);
    }
    return out;
}

std::string ArgsManager::GetHelpMessage(bool show_debug) const
{
    std::map<std::string, std::vector<const Option*>> by_category;
    for (const auto& [name, option] : m_options) {
        if ((option.flags & DEBUG_ONLY) && !show_debug) continue;
        by_category[option.category].push_back(&option);
    }
    std::ostringstream out;
    for (const auto& [category, options] : by_category) {
        out << category << ":\n\n";
        for (const Option* option : options) {
            out << "  -" << option->name << option->help_param << "\n       " << option->help << "\n\n";
        }
    }
    return out.str();
}
