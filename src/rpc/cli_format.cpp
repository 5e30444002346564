#include <rpc/cli_format.h>

#include <rpc/json.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <utility>

using json = nlohmann::json;

namespace {

// (method, position, name) of parameters that are strings even when they
// look like JSON. Methods not listed convert every argument that parses.
struct StringParam {
    const char* method;
    size_t position;
    const char* name;
};
constexpr StringParam STRING_PARAMS[] = {
    {"help", 0, "command"},
    {"dumptxoutset", 0, "path"},
    {"dumptxoutset", 1, "type"},
    {"loadtxoutset", 0, "path"},
    {"gettxoutsetinfo", 0, "hash_type"},
    {"getblock", 0, "blockhash"},
    {"getblockheader", 0, "blockhash"},
    {"gettxout", 0, "txid"},
    {"submitheader", 0, "hexdata"},
    {"scantxoutset", 0, "action"},
};

bool IsStringParam(const std::string& method, size_t position, const std::string& name)
{
    // echo sends every argument as it was typed; that is its purpose.
    if (method == "echo") return true;
    for (const auto& param : STRING_PARAMS) {
        if (method != param.method) continue;
        if (name.empty() ? position == param.position : name == param.name) return true;
    }
    return false;
}

} // namespace

json ConvertCliArgument(const std::string& method, size_t position, const std::string& name, const std::string& text)
{
    if (IsStringParam(method, position, name)) return text;
    if (auto value = ParseJSONKeepNumbers(text)) return *value;
    return text;
}

json BuildCliParams(const std::string& method, const std::vector<std::string>& args, bool named)
{
    if (!named) {
        json params = json::array();
        for (size_t i = 0; i < args.size(); ++i) params.push_back(ConvertCliArgument(method, i, "", args[i]));
        return params;
    }
    json params = json::object();
    json positional = json::array();
    for (const std::string& arg : args) {
        const auto eq = arg.find('=');
        if (eq == std::string::npos) {
            positional.push_back(ConvertCliArgument(method, positional.size(), "", arg));
            continue;
        }
        const std::string name = arg.substr(0, eq);
        if (params.contains(name)) throw std::runtime_error{"Parameter " + name + " specified multiple times"};
        params[name] = ConvertCliArgument(method, 0, name, arg.substr(eq + 1));
    }
    if (!positional.empty()) {
        if (params.contains("args")) throw std::runtime_error{"Parameter args specified multiple times"};
        params["args"] = std::move(positional);
    }
    return params;
}

CliOutput FormatCliReply(const json& reply)
{
    const auto error = reply.find("error");
    if (error == reply.end() || error->is_null()) {
        const auto result = reply.find("result");
        if (result == reply.end() || result->is_null()) return {};
        if (result->is_string()) return {result->get<std::string>()};
        return {WriteJSON(*result, 2)};
    }
    CliOutput output{"", /*to_stderr=*/true, /*exit_code=*/1};
    if (!error->is_object()) {
        output.text = "error: " + WriteJSON(*error);
        return output;
    }
    const auto code = error->find("code");
    const auto message = error->find("message");
    output.text = "error code: " + (code == error->end() ? std::string{"null"} : WriteJSON(*code)) + "\n";
    if (message != error->end() && message->is_string()) output.text += "error message:\n" + message->get<std::string>();
    // Every RPC error exits 1: upstream's |code| wraps modulo 256 (-32601
    // exits 89), which scripts cannot tell apart reliably.
    return output;
}

namespace {

// How many of `step` it takes to cover `share` (0 for none).
int Blocks(double share, double step) { return share > 0 ? static_cast<int>(std::ceil(share / step)) : 0; }

std::string ProgressBar(double progress)
{
    if (progress < 0 || progress > 1) return "";
    constexpr double STEP{0.05};
    std::string bar;
    for (int i = Blocks(progress, STEP); i > 0; --i) bar += "\u2592";
    for (int i = Blocks(1 - progress, STEP); i > 0; --i) bar += "\u2591";
    return bar;
}

std::string Text(const json& value) { return value.is_string() ? value.get<std::string>() : WriteJSON(value); }

// A number as the reply carried it: a double, an integer, or its kept text.
double Number(const json& value)
{
    if (const auto text = JSONRawNumberText(value)) return std::strtod(text->c_str(), nullptr);
    return value.is_number() ? value.get<double>() : 0.0;
}

} // namespace

std::string FormatGetInfo(const json& info)
{
    std::string out = "Chain: " + Text(info.value("chain", json{})) + "\n";
    out += "Blocks: " + Text(info.value("blocks", json{})) + "\n";
    out += "Headers: " + Text(info.value("headers", json{})) + "\n";
    const double progress = Number(info.value("verificationprogress", json{}));
    const std::string bar = progress < 0.99 ? ProgressBar(progress) + " " : "";
    out += fmt::format("Verification progress: {}{:.4f}%\n", bar, progress * 100);
    // A snapshot loaded without its headers has no difficulty to show.
    if (info.contains("difficulty")) out += "Difficulty: " + Text(info["difficulty"]) + "\n";
    out += "\nWarnings: ";
    const json warnings = info.value("warnings", json::array());
    if (warnings.empty() || warnings == json("")) return out + "(none)";
    if (!warnings.is_array()) return out + Text(warnings);
    for (size_t i = 0; i < warnings.size(); ++i) out += (i ? "\n" : "") + Text(warnings[i]);
    return out;
}
