#include <rpc/help.h>

#include <rpc/json.h>
#include <rpc/protocol.h>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

using json = nlohmann::json;

namespace {

// Descriptions start this far after the longest left-hand text.
constexpr size_t COLUMN_GAP{4};

std::string ArgTypeText(RPCArgType type)
{
    switch (type) {
    case RPCArgType::STR:
    case RPCArgType::STR_HEX: return "string";
    case RPCArgType::NUM: return "numeric";
    case RPCArgType::BOOL: return "boolean";
    case RPCArgType::STR_OR_NUM: return "string or numeric";
    case RPCArgType::OPTIONS: return "json object";
    case RPCArgType::ARR: return "json array";
    }
    return "";
}

// An array argument's element in the usage line: "name" for a string.
std::string ElementUsage(const RPCArg& arr)
{
    if (arr.members.empty()) return "...";
    const RPCArg& element = arr.members.front();
    const bool quoted = element.type == RPCArgType::STR || element.type == RPCArgType::STR_HEX;
    return quoted ? fmt::format("\"{}\"", element.name) : element.name;
}

// How a member of an options object looks inside the usage line's { }.
std::string MemberUsage(const RPCArg& member)
{
    switch (member.type) {
    case RPCArgType::STR: return fmt::format("\"{}\":\"str\"", member.name);
    case RPCArgType::STR_HEX: return fmt::format("\"{}\":\"hex\"", member.name);
    case RPCArgType::BOOL: return fmt::format("\"{}\":bool", member.name);
    case RPCArgType::NUM:
    case RPCArgType::STR_OR_NUM:
    case RPCArgType::OPTIONS: return fmt::format("\"{}\":n", member.name);
    case RPCArgType::ARR: return fmt::format("\"{}\":[{},...]", member.name, ElementUsage(member));
    }
    return "";
}

std::string ArgUsage(const RPCArg& arg)
{
    switch (arg.type) {
    case RPCArgType::STR:
    case RPCArgType::STR_HEX: return fmt::format("\"{}\"", arg.name);
    case RPCArgType::NUM:
    case RPCArgType::BOOL:
    case RPCArgType::STR_OR_NUM: return arg.name;
    case RPCArgType::OPTIONS: {
        std::string out = "{";
        for (const RPCArg& member : arg.members) out += MemberUsage(member) + ",";
        return out + "...}";
    }
    case RPCArgType::ARR: return fmt::format("[{},...]", ElementUsage(arg));
    }
    return arg.name;
}

// A help line: left-hand text, then a description in the section's column
// (none for a bracket or "...").
struct HelpLine {
    std::string left;
    std::string right;
};

// The lines with every description starting at `column`, and its further
// lines too.
std::string RenderColumns(const std::vector<HelpLine>& lines, size_t column)
{
    std::string out;
    for (const HelpLine& line : lines) {
        if (line.right.empty()) {
            out += line.left + "\n";
            continue;
        }
        std::string right = line.right;
        for (size_t at = right.find('\n'); at != std::string::npos; at = right.find('\n', at + 1 + column)) {
            right.insert(at + 1, column, ' ');
        }
        out += fmt::format("{:<{}}{}\n", line.left, column, right);
    }
    return out;
}

// One "name    (type, need) description" line per argument; an array
// argument's element follows it inside [ ]. Descriptions start in one
// column, past the longest left-hand text, and their further lines too.
std::string ArgLines(const std::vector<const RPCArg*>& args, bool numbered)
{
    std::vector<HelpLine> lines;
    for (size_t i = 0; i < args.size(); ++i) {
        const RPCArg& arg = *args[i];
        std::string need = "required";
        if (arg.need == RPCArg::Need::OPTIONAL) need = arg.default_text.empty() ? "optional" : "optional, default=" + arg.default_text;
        const std::string number = numbered ? std::to_string(i + 1) + ". " : "";
        lines.push_back({number + arg.name, fmt::format("({}, {}) {}", ArgTypeText(arg.type), need, arg.description)});
        if (arg.type != RPCArgType::ARR || arg.members.empty()) continue;
        const RPCArg& element = arg.members.front();
        lines.push_back({"     [", ""});
        lines.push_back({fmt::format("       {},", ElementUsage(arg)), fmt::format("({}) {}", ArgTypeText(element.type), element.description)});
        lines.push_back({"       ...", ""});
        lines.push_back({"     ]", ""});
    }
    size_t width = 0;
    for (const HelpLine& line : lines) {
        if (!line.right.empty()) width = std::max(width, line.left.size());
    }
    return RenderColumns(lines, width + COLUMN_GAP);
}

std::string ResultTypeText(RPCResult::Type type)
{
    switch (type) {
    case RPCResult::Type::OBJ:
    case RPCResult::Type::OBJ_DYN: return "json object";
    case RPCResult::Type::ARR: return "json array";
    case RPCResult::Type::STR:
    case RPCResult::Type::STR_HEX: return "string";
    case RPCResult::Type::NUM:
    case RPCResult::Type::NUM_TIME:
    case RPCResult::Type::AMOUNT: return "numeric";
    case RPCResult::Type::BOOL: return "boolean";
    case RPCResult::Type::NONE: return "json null";
    }
    return "";
}

std::string ResultValueText(RPCResult::Type type)
{
    switch (type) {
    case RPCResult::Type::STR: return "\"str\"";
    case RPCResult::Type::STR_HEX: return "\"hex\"";
    case RPCResult::Type::NUM:
    case RPCResult::Type::AMOUNT: return "n";
    case RPCResult::Type::NUM_TIME: return "xxx";
    case RPCResult::Type::BOOL: return "true|false";
    case RPCResult::Type::NONE: return "null";
    case RPCResult::Type::OBJ:
    case RPCResult::Type::OBJ_DYN: return "{";
    case RPCResult::Type::ARR: return "[";
    }
    return "";
}

struct ResultLine {
    std::string left;
    std::string right;
    // A member or element with no comma after it (the last one): its
    // width counts one anyway, so the column does not depend on order.
    bool comma_missing{false};
};

void RenderResult(const RPCResult& result, size_t indent, bool nested, bool last, std::vector<ResultLine>& out)
{
    const std::string pad(indent, ' ');
    const std::string prefix = result.key.empty() ? pad : fmt::format("{}\"{}\" : ", pad, result.key);
    const std::string comma = nested && !last ? "," : "";
    std::string right = fmt::format("({}{})", ResultTypeText(result.type), result.optional ? ", optional" : "");
    if (!result.description.empty()) right += fmt::format(" {}", result.description);
    if (result.type != RPCResult::Type::OBJ && result.type != RPCResult::Type::ARR && result.type != RPCResult::Type::OBJ_DYN) {
        out.push_back({prefix + ResultValueText(result.type) + comma, right, nested && last});
        return;
    }
    out.push_back({prefix + ResultValueText(result.type), right});
    if (result.type == RPCResult::Type::OBJ) {
        for (size_t i = 0; i < result.inner.size(); ++i) {
            RenderResult(result.inner[i], indent + 2, /*nested=*/true, i + 1 == result.inner.size(), out);
        }
        out.push_back({pad + "}" + comma, ""});
    } else {
        // The element once, then "..." for the others.
        for (const RPCResult& element : result.inner) RenderResult(element, indent + 2, /*nested=*/true, /*last=*/false, out);
        out.push_back({pad + "  ...", ""});
        out.push_back({pad + (result.type == RPCResult::Type::ARR ? "]" : "}") + comma, ""});
    }
}

std::string ResultLines(const RPCResult& result)
{
    std::vector<ResultLine> lines;
    RenderResult(result, 0, /*nested=*/false, /*last=*/true, lines);
    size_t width = 0;
    std::vector<HelpLine> columns;
    for (const ResultLine& line : lines) {
        width = std::max(width, line.left.size() + (line.comma_missing ? 1 : 0));
        columns.push_back({line.left, line.right});
    }
    return RenderColumns(columns, width + COLUMN_GAP);
}

// Core's names for JSON types in type errors, and whether value is one.
struct ExpectedType {
    const char* name;
    bool (*matches)(const json&);
};

ExpectedType ExpectedTypeOf(RPCArgType type)
{
    switch (type) {
    case RPCArgType::STR:
    case RPCArgType::STR_HEX: return {"string", [](const json& v) { return v.is_string(); }};
    case RPCArgType::NUM: return {"number", [](const json& v) { return JSONTypeName(v) == "number"; }};
    case RPCArgType::BOOL: return {"bool", [](const json& v) { return v.is_boolean(); }};
    case RPCArgType::STR_OR_NUM: return {"string or number", [](const json& v) { return v.is_string() || JSONTypeName(v) == "number"; }};
    case RPCArgType::OPTIONS: return {"object", [](const json& v) { return v.is_object(); }};
    case RPCArgType::ARR: return {"array", [](const json& v) { return v.is_array(); }};
    }
    return {"", [](const json&) { return true; }};
}

} // namespace

std::string RPCHelp::Usage() const
{
    std::string out = name;
    bool in_optional = false;
    for (const RPCArg& arg : args) {
        if (arg.hidden) continue;
        if (arg.need == RPCArg::Need::OPTIONAL && !in_optional) {
            out += " (";
            in_optional = true;
        }
        out += fmt::format(" {}", ArgUsage(arg));
    }
    if (in_optional) out += " )";
    return out;
}

std::string RPCHelp::ToString() const
{
    std::string out = fmt::format("{}\n\n{}\n", Usage(), description);
    std::vector<const RPCArg*> shown;
    for (const RPCArg& arg : args) {
        if (!arg.hidden) shown.push_back(&arg);
    }
    if (!shown.empty()) out += "\nArguments:\n" + ArgLines(shown, /*numbered=*/true);
    for (const RPCArg* arg : shown) {
        if (arg->type != RPCArgType::OPTIONS) continue;
        std::vector<const RPCArg*> members;
        for (const RPCArg& member : arg->members) members.push_back(&member);
        out += "\nNamed Arguments:\n" + ArgLines(members, /*numbered=*/false);
    }
    for (const RPCResults& result : results) {
        const std::string condition = result.condition.empty() ? "" : fmt::format(" ({})", result.condition);
        out += fmt::format("\nResult{}:\n{}", condition, ResultLines(result.result));
    }
    if (!examples.empty()) out += "\nExamples:\n" + examples;
    return out;
}

std::vector<std::string> RPCHelp::ArgNames() const
{
    std::vector<std::string> names;
    for (const RPCArg& arg : args) names.push_back(arg.name);
    return names;
}

NamedOptions RPCHelp::Options() const
{
    for (const RPCArg& arg : args) {
        if (arg.type != RPCArgType::OPTIONS) continue;
        NamedOptions options{arg.name, {}};
        for (const RPCArg& member : arg.members) options.member_names.push_back(member.name);
        return options;
    }
    return {};
}

void RPCHelp::CheckParams(const json& params) const
{
    size_t required = 0;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].need == RPCArg::Need::REQUIRED) required = i + 1;
    }
    if (params.size() < required || params.size() > args.size()) throw std::runtime_error(ToString());
    std::vector<std::string> mismatches;
    for (size_t i = 0; i < params.size(); ++i) {
        const RPCArg& arg = args[i];
        if (params[i].is_null() && arg.need == RPCArg::Need::OPTIONAL) continue;
        const ExpectedType expected = ExpectedTypeOf(arg.type);
        if (expected.matches(params[i])) continue;
        mismatches.push_back("    \"Position " + std::to_string(i + 1) + " (" + arg.name + ")\": \"JSON value of type " +
                             JSONTypeName(params[i]) + " is not of expected type " + expected.name + "\"");
    }
    if (mismatches.empty()) return;
    std::string message = "Wrong type passed:\n{\n";
    for (size_t i = 0; i < mismatches.size(); ++i) message += mismatches[i] + (i + 1 < mismatches.size() ? ",\n" : "\n");
    throw JSONRPCError{RPC_TYPE_ERROR, message + "}"};
}

std::string HelpExampleCli(const std::string& method, const std::string& args)
{
    return "> bitcoin-cli " + method + " " + args + "\n";
}

std::string HelpExampleCliNamed(const std::string& method, const std::string& args)
{
    return "> bitcoin-cli -named " + method + " " + args + "\n";
}

std::string HelpExampleRpc(const std::string& method, const std::string& args)
{
    return "> curl --user myusername --data-binary '{\"jsonrpc\": \"2.0\", \"id\": \"curltest\", \"method\": \"" + method +
           "\", \"params\": [" + args + "]}' -H 'content-type: application/json' http://127.0.0.1:8332/\n";
}
