#include <node/init/context.h>
#include <node/rpc/util.h>
#include <rpc/help.h>
#include <rpc/json.h>
#include <rpc/protocol.h>
#include <rpc/server.h>
#include <util/log.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <string>
#include <vector>

using nlohmann::json;

namespace node {

namespace {

using T = RPCResult::Type;
constexpr auto OPTIONAL = RPCArg::Need::OPTIONAL;

// The categories of one of logging's two lists; every name is checked before
// any is applied, so a typo changes nothing.
std::vector<logging::Category> CategoriesOf(const json& list)
{
    std::vector<logging::Category> categories;
    if (list.is_null()) return categories;
    for (const json& item : list) {
        if (!item.is_string()) {
            throw JSONRPCError(RPC_TYPE_ERROR, "JSON value of type " + JSONTypeName(item) + " is not of expected type string");
        }
        const auto category = logging::CategoryFromName(item.get<std::string>());
        if (!category) throw JSONRPCError(RPC_INVALID_PARAMETER, "unknown logging category " + item.get<std::string>());
        categories.push_back(*category);
    }
    return categories;
}

json Logging(const JSONRPCRequest& request)
{
    const json& params = request.params;
    const auto include = CategoriesOf(params.size() > 0 ? params[0] : json{});
    const auto exclude = CategoriesOf(params.size() > 1 ? params[1] : json{});
    // Include first, so a category in both lists ends up excluded.
    for (const auto category : include) logging::EnableCategory(category);
    for (const auto category : exclude) logging::DisableCategory(category);
    json result = json::object();
    for (const auto& state : logging::CategoryStates()) result[std::string{state.name}] = state.active;
    return result;
}

// glibc's malloc_info() XML, which it only writes to a FILE.
std::string MallocInfo()
{
    char* buffer = nullptr;
    size_t size = 0;
    FILE* stream = open_memstream(&buffer, &size);
    if (!stream) throw JSONRPCError(RPC_INTERNAL_ERROR, "open_memstream failed");
    malloc_info(0, stream);
    std::fclose(stream);
    std::string xml{buffer, size};
    std::free(buffer);
    return xml;
}

json GetMemoryInfo(const JSONRPCRequest& request)
{
    const std::string mode = request.params.size() > 0 && !request.params[0].is_null() ? request.params[0].get<std::string>() : "stats";
    if (mode == "mallocinfo") return MallocInfo();
    if (mode != "stats") throw JSONRPCError(RPC_INVALID_PARAMETER, "unknown mode " + mode);
    // Core's figures are those of the locked pool its wallet keeps keys
    // in. coinsdb has no wallet and locks no memory: every one is 0.
    return json{{"locked", {{"used", 0}, {"free", 0}, {"total", 0}, {"locked", 0}, {"chunks_used", 0}, {"chunks_free", 0}}}};
}

RPCHelp LoggingHelp()
{
    const std::string names = [] {
        std::string out;
        for (const auto& state : logging::CategoryStates()) out += (out.empty() ? "" : ", ") + std::string{state.name};
        return out;
    }();
    const auto list = [](const std::string& name, const std::string& what) {
        return RPCArg{name, RPCArgType::ARR, OPTIONAL, "", "The categories to " + what + " debug logging",
                      {{name + "_category", RPCArgType::STR, RPCArg::Need::REQUIRED, "", "the valid logging category"}}};
    };
    return {.name = "logging",
            .description = "Shows which debug logging categories are on and, given lists, turns categories on or off first.\n"
                           "The \"include\" list is applied before the \"exclude\" list, so a category in both ends up off.\n"
                           "Every name in either list is checked before anything changes.\n"
                           "Categories: " + names + "\n"
                           "coinsdb writes lines under coindb, leveldb, rpc, bench and prune only; the other names are accepted,\n"
                           "as Core accepts them, and always show false, since nothing of theirs is logged.\n"
                           "\"all\" and \"1\" stand for every category.",
            .args = {list("include", "add to"), list("exclude", "remove from")},
            .results = {{"", {T::OBJ_DYN, "", "every category by name, with whether it is logged",
                              {{T::BOOL, "category", "true: its lines are written; false: they are not"}}}}},
            .examples = HelpExampleCli("logging", "\"[\\\"all\\\"]\" \"[\\\"leveldb\\\"]\"") +
                        HelpExampleRpc("logging", "[\"coindb\"], [\"rpc\"]")};
}

RPCHelp GetMemoryInfoHelp()
{
    return {.name = "getmemoryinfo",
            .description = "Returns information about the node's memory.",
            .args = {{"mode", RPCArgType::STR, OPTIONAL, "\"stats\"",
                      "what to return.\n"
                      "- \"stats\": Core's locked-memory figures; coinsdb locks no memory, so they are all 0.\n"
                      "- \"mallocinfo\": glibc's malloc_info() XML, the state of the heap."}},
            .results = {{"mode \"stats\"", {T::OBJ, "", "", {
                             {T::OBJ, "locked", "The locked memory pool (none in coinsdb)", {
                                 {T::NUM, "used", "Bytes in use"},
                                 {T::NUM, "free", "Bytes free in the pool's arenas"},
                                 {T::NUM, "total", "Bytes the pool manages"},
                                 {T::NUM, "locked", "Bytes locked in RAM"},
                                 {T::NUM, "chunks_used", "Chunks in use"},
                                 {T::NUM, "chunks_free", "Chunks free"},
                             }},
                         }}},
                        {"mode \"mallocinfo\"", {T::STR, "", "\"<malloc version=\"1\">...\""}}},
            .examples = HelpExamples("getmemoryinfo") + HelpExampleCli("getmemoryinfo", "\"mallocinfo\"")};
}

} // namespace

void RegisterControlRPCCommands(RPCTable& table, NodeContext& node)
{
    const RPCHelp uptime{.name = "uptime",
                         .description = "Returns how long the node has been running.",
                         .args = {},
                         .results = {{"", {RPCResult::Type::NUM, "", "Seconds since the node started"}}},
                         .examples = HelpExamples("uptime")};
    table.Register(MakeRPCCommand("control", uptime, [&node](const JSONRPCRequest&) -> json {
        return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - node.start_time).count();
    }));
    // "wait" is upstream's hidden test argument; accepted and ignored.
    const RPCHelp stop{.name = "stop",
                       .description = "Asks the node to shut down cleanly: it stops taking calls, writes its coins caches and block\n"
                                      "index to disk and exits.",
                       .args = {{"wait", RPCArgType::NUM, RPCArg::Need::OPTIONAL, "", "Ignored", {}, /*hidden=*/true}},
                       .results = {{"", {RPCResult::Type::STR, "", "\"coinsdb stopping\""}}},
                       .examples = HelpExamples("stop")};
    table.Register(MakeRPCCommand("control", stop, [&node](const JSONRPCRequest&) -> json {
        node.RequestShutdown();
        return "coinsdb stopping";
    }));
    table.Register(MakeRPCCommand("control", LoggingHelp(), Logging));
    table.Register(MakeRPCCommand("control", GetMemoryInfoHelp(), GetMemoryInfo));
}

} // namespace node
