// The help layout (rpc/help.h) on made-up methods: the usage line with its
// optional group and options object, the argument and named-argument
// columns, result skeletons (nested objects, arrays with their "...",
// optional members, several results, multi-line descriptions) with the
// description column counted as Core counts it, and the parameter checks
// a call passes before its handler.

#include <rpc/help.h>
#include <rpc/protocol.h>
#include <rpc/server.h>

#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

using json = nlohmann::json;

namespace {

RPCHelp Fetch()
{
    return RPCHelp{
        .name = "fetch",
        .description = "Fetches a thing.\nTwo lines of description.",
        .args = {
            {"id", RPCArgType::STR_HEX, RPCArg::Need::REQUIRED, "", "Which thing"},
            {"depth", RPCArgType::NUM, RPCArg::Need::REQUIRED, "", "How deep"},
            {"pretty", RPCArgType::BOOL, RPCArg::Need::OPTIONAL, "true", "Whether to indent"},
            {"options", RPCArgType::OPTIONS, RPCArg::Need::OPTIONAL, "", "More, by name",
             {{"at", RPCArgType::STR_OR_NUM, RPCArg::Need::OPTIONAL, "", "Where"},
              {"in_memory", RPCArgType::BOOL, RPCArg::Need::OPTIONAL, "false", "Whether in memory"}}},
            {"secret", RPCArgType::NUM, RPCArg::Need::OPTIONAL, "", "Not shown", {}, /*hidden=*/true},
        },
        .results = {
            {"when found", {RPCResult::Type::OBJ, "", "", {
                {RPCResult::Type::STR_HEX, "id", "The id"},
                {RPCResult::Type::NUM_TIME, "time", "When"},
                {RPCResult::Type::OBJ, "inner", "", {
                    {RPCResult::Type::AMOUNT, "value", "How much"},
                    {RPCResult::Type::STR, "label", "Its label", {}, /*optional=*/true},
                }},
                {RPCResult::Type::ARR, "tags", "The tags", {{RPCResult::Type::STR, "", "A tag"}}},
                {RPCResult::Type::BOOL, "done", "Whether done\nsecond line"},
            }}},
            {"otherwise", {RPCResult::Type::NONE, "", "Nothing"}},
        },
        .examples = HelpExampleCli("fetch", "\"ab\" 1") + HelpExampleRpc("fetch", "\"ab\", 1"),
    };
}

} // namespace

BOOST_AUTO_TEST_SUITE(rpc_help_tests)

BOOST_AUTO_TEST_CASE(layout)
{
    const RPCHelp help = Fetch();
    BOOST_CHECK_EQUAL(help.Usage(), "fetch \"id\" depth ( pretty {\"at\":n,\"in_memory\":bool,...} )");
    // The longest left-hand text is "  \"done\" : true|false" (21), counted
    // with a comma (22), so descriptions start at 26.
    BOOST_CHECK_EQUAL(help.ToString(),
                      "fetch \"id\" depth ( pretty {\"at\":n,\"in_memory\":bool,...} )\n"
                      "\n"
                      "Fetches a thing.\n"
                      "Two lines of description.\n"
                      "\n"
                      "Arguments:\n"
                      "1. id         (string, required) Which thing\n"
                      "2. depth      (numeric, required) How deep\n"
                      "3. pretty     (boolean, optional, default=true) Whether to indent\n"
                      "4. options    (json object, optional) More, by name\n"
                      "\n"
                      "Named Arguments:\n"
                      "at           (string or numeric, optional) Where\n"
                      "in_memory    (boolean, optional, default=false) Whether in memory\n"
                      "\n"
                      "Result (when found):\n"
                      "{                         (json object)\n"
                      "  \"id\" : \"hex\",           (string) The id\n"
                      "  \"time\" : xxx,           (numeric) When\n"
                      "  \"inner\" : {             (json object)\n"
                      "    \"value\" : n,          (numeric) How much\n"
                      "    \"label\" : \"str\"       (string, optional) Its label\n"
                      "  },\n"
                      "  \"tags\" : [              (json array) The tags\n"
                      "    \"str\",                (string) A tag\n"
                      "    ...\n"
                      "  ],\n"
                      "  \"done\" : true|false     (boolean) Whether done\n"
                      "                          second line\n"
                      "}\n"
                      "\n"
                      "Result (otherwise):\n"
                      "null    (json null) Nothing\n"
                      "\n"
                      "Examples:\n"
                      "> bitcoin-cli fetch \"ab\" 1\n"
                      "> curl --user myusername --data-binary '{\"jsonrpc\": \"2.0\", \"id\": \"curltest\", \"method\": \"fetch\", "
                      "\"params\": [\"ab\", 1]}' -H 'content-type: application/json' http://127.0.0.1:8332/\n");
}

BOOST_AUTO_TEST_CASE(no_arguments_one_result)
{
    const RPCHelp help{.name = "count", .description = "Counts.", .args = {}, .results = {{"", {RPCResult::Type::NUM, "", "The count"}}},
                       .examples = HelpExampleCli("count", "")};
    BOOST_CHECK_EQUAL(help.Usage(), "count");
    BOOST_CHECK_EQUAL(help.ToString(), "count\n\nCounts.\n\nResult:\nn    (numeric) The count\n\nExamples:\n> bitcoin-cli count \n");
}

BOOST_AUTO_TEST_CASE(names_and_options)
{
    const RPCHelp help = Fetch();
    BOOST_CHECK((help.ArgNames() == std::vector<std::string>{"id", "depth", "pretty", "options", "secret"}));
    const NamedOptions options = help.Options();
    BOOST_CHECK_EQUAL(options.arg_name, "options");
    BOOST_CHECK((options.member_names == std::vector<std::string>{"at", "in_memory"}));
    // Named calls gather the members into the options object, in its place.
    BOOST_CHECK_EQUAL(NamedParamsToPositional(json{{"id", "ab"}, {"depth", 1}, {"in_memory", true}}, help.ArgNames(), options).dump(),
                      R"(["ab",1,null,{"in_memory":true}])");
    BOOST_CHECK_EXCEPTION(NamedParamsToPositional(json{{"id", "ab"}, {"options", json::object()}, {"at", 5}}, help.ArgNames(), options),
                          JSONRPCError, [](const JSONRPCError& e) {
                              return e.code == RPC_INVALID_PARAMETER && std::string{e.what()} == "Parameter options conflicts with parameter at";
                          });
}

BOOST_AUTO_TEST_CASE(parameter_checks)
{
    const RPCHelp help = Fetch();
    BOOST_CHECK_NO_THROW(help.CheckParams(json{"ab", 1}));
    BOOST_CHECK_NO_THROW(help.CheckParams(json{"ab", 1, nullptr, json::object(), 7}));
    // Too few or too many: the help text, as RPC_MISC_ERROR through the server.
    for (const json& params : {json::array(), json{"ab"}, json{"ab", 1, true, json::object(), 7, 8}}) {
        BOOST_CHECK_EXCEPTION(help.CheckParams(params), std::runtime_error,
                              [&](const std::runtime_error& e) { return std::string{e.what()} == help.ToString(); });
    }
    // Every mismatch named by position, a required null among them.
    BOOST_CHECK_EXCEPTION(help.CheckParams(json{nullptr, "1", 1}), JSONRPCError, [](const JSONRPCError& e) {
        return e.code == RPC_TYPE_ERROR && std::string{e.what()} ==
                                               "Wrong type passed:\n{\n"
                                               "    \"Position 1 (id)\": \"JSON value of type null is not of expected type string\",\n"
                                               "    \"Position 2 (depth)\": \"JSON value of type string is not of expected type number\",\n"
                                               "    \"Position 3 (pretty)\": \"JSON value of type number is not of expected type bool\"\n"
                                               "}";
    });
    BOOST_CHECK_EXCEPTION(help.CheckParams(json{"ab", 1, true, json::array()}), JSONRPCError, [](const JSONRPCError& e) {
        return std::string{e.what()} == "Wrong type passed:\n{\n"
                                        "    \"Position 4 (options)\": \"JSON value of type array is not of expected type object\"\n}";
    });
}

BOOST_AUTO_TEST_CASE(command_from_help)
{
    RPCTable table;
    table.Register(MakeRPCCommand("test", Fetch(), [](const JSONRPCRequest& request) { return request.params; }));
    BOOST_CHECK_EQUAL(table.HelpText("fetch"), Fetch().ToString());
    // "help" lists the usage line.
    BOOST_CHECK(table.HelpText("").find("== Test ==\nfetch \"id\" depth ( pretty {\"at\":n,\"in_memory\":bool,...} )") != std::string::npos);
    JSONRPCRequest request;
    request.method = "fetch";
    request.params = json{{"id", "ab"}, {"depth", 2}, {"at", 9}};
    BOOST_CHECK_EQUAL(table.Execute(request).dump(), R"(["ab",2,null,{"at":9}])");
    request.params = json{"ab", "2"};
    BOOST_CHECK_EXCEPTION(table.Execute(request), JSONRPCError, [](const JSONRPCError& e) { return e.code == RPC_TYPE_ERROR; });
    request.params = json{"ab"};
    BOOST_CHECK_EXCEPTION(table.Execute(request), JSONRPCError,
                          [](const JSONRPCError& e) { return e.code == RPC_MISC_ERROR && std::string{e.what()} == Fetch().ToString(); });
}

// Core's logging and getmemoryinfo shapes: array arguments with their
// element inside [ ], a description of several lines, an object whose keys
// are known only at run time.
BOOST_AUTO_TEST_CASE(arrays_and_dynamic_objects)
{
    const RPCHelp help{
        .name = "pick",
        .description = "Picks.",
        .args = {
            {"include", RPCArgType::ARR, RPCArg::Need::OPTIONAL, "", "To add",
             {{"include_name", RPCArgType::STR, RPCArg::Need::REQUIRED, "", "a name"}}},
            {"mode", RPCArgType::STR, RPCArg::Need::OPTIONAL, "\"a\"", "how.\n- \"a\": one\n- \"b\": two"},
        },
        .results = {{"", {RPCResult::Type::OBJ_DYN, "", "by name", {{RPCResult::Type::BOOL, "name", "whether"}}}}},
        .examples = "",
    };
    BOOST_CHECK_EQUAL(help.Usage(), "pick ( [\"include_name\",...] \"mode\" )");
    // The element line ("       \"include_name\",", 22) is the widest:
    // descriptions start at 26, further lines of one too.
    BOOST_CHECK_EQUAL(help.ToString(),
                      "pick ( [\"include_name\",...] \"mode\" )\n"
                      "\n"
                      "Picks.\n"
                      "\n"
                      "Arguments:\n"
                      "1. include                (json array, optional) To add\n"
                      "     [\n"
                      "       \"include_name\",    (string) a name\n"
                      "       ...\n"
                      "     ]\n"
                      "2. mode                   (string, optional, default=\"a\") how.\n"
                      "                          - \"a\": one\n"
                      "                          - \"b\": two\n"
                      "\n"
                      "Result:\n"
                      "{                         (json object) by name\n"
                      "  \"name\" : true|false,    (boolean) whether\n"
                      "  ...\n"
                      "}\n");
    help.CheckParams(json::array({json::array({"x"}), "b"}));
    BOOST_CHECK_EXCEPTION(help.CheckParams(json::array({"x"})), JSONRPCError, [](const JSONRPCError& e) {
        return e.code == RPC_TYPE_ERROR && std::string{e.what()}.find("is not of expected type array") != std::string::npos;
    });
}

BOOST_AUTO_TEST_SUITE_END()
