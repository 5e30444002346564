#include <rpc/server.h>

#include <rpc/json.h>
#include <util/log.h>

#include <cctype>
#include <stdexcept>
#include <utility>

using json = nlohmann::json;

namespace {

RPCHelp HelpHelp()
{
    return {.name = "help",
            .description = "Lists every command with its usage line, by category, or shows the full help of one command.",
            .args = {{"command", RPCArgType::STR, RPCArg::Need::OPTIONAL, "all commands", "The command to show the help of"}},
            .results = {{"", {RPCResult::Type::STR, "", "The list, or the command's help"}}},
            .examples = HelpExampleCli("help", "") + HelpExampleCli("help", "getblockheader") + HelpExampleRpc("help", "\"getblockheader\"")};
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string CategoryTitle(std::string category)
{
    if (!category.empty()) category[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(category[0])));
    return "== " + category + " ==";
}

} // namespace

RPCCommand MakeRPCCommand(std::string category, const RPCHelp& help, RPCHandler handler)
{
    return {std::move(category), help.name, help.ArgNames(), help.ToString(), std::move(handler), help.Options(),
            [help](const json& params) { help.CheckParams(params); }};
}

RPCTable::RPCTable()
{
    Register(MakeRPCCommand("control", HelpHelp(), [this](const JSONRPCRequest& request) { return Help(request); }));
}

void RPCTable::Register(RPCCommand cmd)
{
    std::lock_guard lock{m_mutex};
    const std::string name = cmd.name;
    if (!m_commands.emplace(name, std::move(cmd)).second) throw std::logic_error{"RPC method registered twice: " + name};
}

void RPCTable::SetWarmup(bool active, std::string status)
{
    std::lock_guard lock{m_mutex};
    m_warmup = active;
    m_warmup_status = std::move(status);
}

void RPCTable::SetWarmupExempt(std::set<std::string> methods)
{
    std::lock_guard lock{m_mutex};
    m_warmup_exempt = std::move(methods);
}

bool RPCTable::IsInWarmup(std::string* status) const
{
    std::lock_guard lock{m_mutex};
    if (status) *status = m_warmup_status;
    return m_warmup;
}

std::string RPCTable::HelpText(const std::string& command) const
{
    std::lock_guard lock{m_mutex};
    if (!command.empty()) {
        const auto it = m_commands.find(command);
        return it == m_commands.end() ? "help: unknown command: " + command : it->second.help;
    }
    std::map<std::string, std::vector<std::string>> by_category;
    for (const auto& [name, cmd] : m_commands) {
        if (cmd.category != "hidden") by_category[cmd.category].push_back(FirstLine(cmd.help.empty() ? name : cmd.help));
    }
    std::string out;
    for (const auto& [category, lines] : by_category) {
        if (!out.empty()) out += "\n";
        out += CategoryTitle(category) + "\n";
        for (const auto& line : lines) out += line + "\n";
    }
    if (!out.empty()) out.pop_back();
    return out;
}

json RPCTable::Help(const JSONRPCRequest& request) const
{
    if (request.params.empty() || request.params[0].is_null()) return HelpText("");
    if (!request.params[0].is_string()) throw JSONRPCError{RPC_TYPE_ERROR, "command must be a string"};
    return HelpText(request.params[0].get<std::string>());
}

json RPCTable::Execute(const JSONRPCRequest& request) const
{
    RPCCommand command;
    {
        std::lock_guard lock{m_mutex};
        if (m_warmup && !m_warmup_exempt.contains(request.method)) throw JSONRPCError{RPC_IN_WARMUP, m_warmup_status};
        const auto it = m_commands.find(request.method);
        if (it == m_commands.end()) throw JSONRPCError{RPC_METHOD_NOT_FOUND, "Method not found"};
        command = it->second;
    }
    JSONRPCRequest call = request;
    if (call.params.is_object()) call.params = NamedParamsToPositional(call.params, command.arg_names, command.named_options);
    try {
        if (command.check_params) {
            command.check_params(call.params);
        } else if (call.params.size() > command.arg_names.size()) {
            throw JSONRPCError{RPC_MISC_ERROR, command.help};
        }
        return command.handler(call);
    } catch (const JSONRPCError&) {
        throw;
    } catch (const json::type_error& e) {
        // A handler read a parameter as the wrong type: the caller's
        // mistake, reported as Core reports it, not in nlohmann's words.
        if (auto message = JSONTypeErrorMessage(e)) throw JSONRPCError{RPC_TYPE_ERROR, *message};
        throw JSONRPCError{RPC_MISC_ERROR, e.what()};
    } catch (const std::exception& e) {
        throw JSONRPCError{RPC_MISC_ERROR, e.what()};
    }
}

RPCTable::Outcome RPCTable::Run(const JSONRPCRequest& request) const
{
    LogDebug(logging::Category::RPC, "ThreadRPCServer method={}", request.method);
    Outcome outcome;
    try {
        // Written here so that a result that cannot be written (a nlohmann
        // binary value that is not a raw number) is this call's error.
        outcome.result_json = WriteJSON(Execute(request));
        outcome.ok = true;
    } catch (const JSONRPCError& e) {
        outcome.code = e.code;
        outcome.message = e.what();
    } catch (const std::exception& e) {
        outcome.code = RPC_MISC_ERROR;
        outcome.message = e.what();
    }
    return outcome;
}

std::string RPCTable::HandleSingle(const json& value, int& http_status) const
{
    ParsedRequest parsed;
    try {
        ParseRequestObject(value, parsed);
    } catch (const JSONRPCError& e) {
        http_status = HTTPStatusForRPCError(e.code);
        return WriteErrorReply(e.code, e.what(), parsed) + "\n";
    }
    const Outcome outcome = Run(parsed.request);
    if (parsed.IsNotification()) {
        http_status = HTTP_NO_CONTENT;
        return "";
    }
    if (outcome.ok) {
        http_status = HTTP_OK;
        return WriteResultReply(outcome.result_json, parsed) + "\n";
    }
    // JSON-RPC 2.0 keeps HTTP errors for HTTP problems; 1.0 clients expect
    // the status to reflect the call.
    http_status = parsed.request.json_version == 2 ? HTTP_OK : HTTPStatusForRPCError(outcome.code);
    return WriteErrorReply(outcome.code, outcome.message, parsed) + "\n";
}

std::string RPCTable::HandleBatch(const json& value, int& http_status) const
{
    std::string replies;
    for (const json& member : value) {
        ParsedRequest parsed;
        std::string reply;
        try {
            ParseRequestObject(member, parsed);
        } catch (const JSONRPCError& e) {
            reply = WriteErrorReply(e.code, e.what(), parsed);
        }
        if (reply.empty()) {
            const Outcome outcome = Run(parsed.request);
            if (parsed.IsNotification()) continue;
            reply = outcome.ok ? WriteResultReply(outcome.result_json, parsed) : WriteErrorReply(outcome.code, outcome.message, parsed);
        }
        replies += (replies.empty() ? "" : ",") + reply;
    }
    // An empty batch still gets "[]": it named no version, so it is most
    // likely a legacy client that expects an array back.
    if (!value.empty() && replies.empty()) {
        http_status = HTTP_NO_CONTENT;
        return "";
    }
    http_status = HTTP_OK;
    return "[" + replies + "]\n";
}

std::string RPCTable::HandleHTTPBody(const std::string& body, int& http_status) const
{
    // Too deep a text is a parse error, as in upstream's UniValue reader.
    // A repeated name is well-formed JSON but an ambiguous request (which
    // "method" counts?), refused as a whole before anything runs.
    JSONParseError error;
    const auto value = ParseJSON(body, JSONNumbers::DOUBLE, &error);
    if (!value && error.kind == JSONParseError::Kind::DUPLICATE_KEY) {
        http_status = HTTPStatusForRPCError(RPC_INVALID_REQUEST);
        return WriteErrorReply(RPC_INVALID_REQUEST, "Duplicate key in JSON object: " + WriteJSON(error.key), ParsedRequest{}) + "\n";
    }
    if (value && value->is_object()) return HandleSingle(*value, http_status);
    if (value && value->is_array()) return HandleBatch(*value, http_status);
    http_status = HTTP_INTERNAL_SERVER_ERROR;
    const char* message = value ? "Top-level object parse error" : "Parse error";
    return WriteErrorReply(RPC_PARSE_ERROR, message, ParsedRequest{}) + "\n";
}
