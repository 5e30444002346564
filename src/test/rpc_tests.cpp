// The JSON-RPC plumbing: request framing in RPCTable (JSON-RPC 1.0 and 2.0,
// batches, named parameters, exact error codes and HTTP statuses), the JSON
// writer, base64 and the auth cookie, bitcoin-cli's argument and reply
// handling, and the HTTP server and client end to end on 127.0.0.1.

#include <rpc/auth.h>
#include <rpc/cli.h>
#include <rpc/cli_format.h>
#include <rpc/client.h>
#include <rpc/httpserver.h>
#include <rpc/json.h>
#include <rpc/netutil.h>
#include <rpc/server.h>
#include <test/util/setup.h>

#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <regex>
#include <sstream>
#include <thread>

using json = nlohmann::json;

namespace {

// A table with a few methods whose behaviour the tests know.
struct TableFixture {
    RPCTable table;
    TableFixture()
    {
        table.Register({"test", "echo", {"a", "b", "c"}, "echo ( a b c )\n\nReturns its parameters.", [](const JSONRPCRequest& r) { return r.params; }});
        table.Register({"test", "fail", {}, "fail\n", [](const JSONRPCRequest&) -> json { throw JSONRPCError{RPC_INVALID_PARAMETER, "bad thing"}; }});
        table.Register({"test", "throw", {}, "throw\n", [](const JSONRPCRequest&) -> json { throw std::runtime_error{"plain exception"}; }});
        table.Register({"control", "stop", {}, "stop\n\nStops the node.", [](const JSONRPCRequest&) -> json { return "stopping"; }});
        table.Register({"hidden", "secret", {}, "secret\n", [](const JSONRPCRequest&) -> json { return nullptr; }});
        table.Register({"test", "unwritable", {}, "unwritable\n", [](const JSONRPCRequest&) -> json { return json::binary({1, 2}); }});
    }
    std::pair<int, std::string> Post(const std::string& body) const
    {
        int status = -1;
        std::string reply = table.HandleHTTPBody(body, status);
        return {status, reply};
    }
};

using Reply = std::pair<int, std::string>;

// inner wrapped in depth arrays ("[[1]]") or objects ({"a":{"a":1}}).
std::string Nest(size_t depth, const std::string& inner, bool objects = false)
{
    std::string out;
    out.reserve(depth * 6 + inner.size());
    for (size_t i = 0; i < depth; ++i) out += objects ? "{\"a\":" : "[";
    out += inner;
    out.append(depth, objects ? '}' : ']');
    return out;
}

const Reply PARSE_ERROR{500, "{\"result\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"},\"id\":null}\n"};

} // namespace

BOOST_AUTO_TEST_SUITE(rpc_tests)

BOOST_FIXTURE_TEST_CASE(jsonrpc1_single_requests, TableFixture)
{
    BOOST_CHECK(Post(R"({"method":"echo","params":[1,"x"],"id":7})") ==
                Reply(200, "{\"result\":[1,\"x\"],\"error\":null,\"id\":7}\n"));
    // A missing id is a null id in 1.0, not a notification.
    BOOST_CHECK(Post(R"({"method":"echo"})") == Reply(200, "{\"result\":[],\"error\":null,\"id\":null}\n"));
    BOOST_CHECK(Post(R"({"jsonrpc":"1.0","method":"echo","id":"s"})") == Reply(200, "{\"result\":[],\"error\":null,\"id\":\"s\"}\n"));
    BOOST_CHECK(Post(R"({"method":"nosuch","id":1})") ==
                Reply(404, "{\"result\":null,\"error\":{\"code\":-32601,\"message\":\"Method not found\"},\"id\":1}\n"));
    BOOST_CHECK(Post(R"({"method":"fail","id":1})") ==
                Reply(500, "{\"result\":null,\"error\":{\"code\":-8,\"message\":\"bad thing\"},\"id\":1}\n"));
    BOOST_CHECK(Post(R"({"method":"throw","id":1})") ==
                Reply(500, "{\"result\":null,\"error\":{\"code\":-1,\"message\":\"plain exception\"},\"id\":1}\n"));
    // A result with no JSON text fails the call, not the server.
    BOOST_CHECK(Post(R"({"method":"unwritable","id":1})") ==
                Reply(500, "{\"result\":null,\"error\":{\"code\":-1,\"message\":\"WriteJSON: binary values other than raw numbers have no JSON text\"},\"id\":1}\n"));
}

BOOST_FIXTURE_TEST_CASE(malformed_requests, TableFixture)
{
    BOOST_CHECK(Post("{\"method\":") == Reply(500, "{\"result\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"},\"id\":null}\n"));
    BOOST_CHECK(Post("42") == Reply(500, "{\"result\":null,\"error\":{\"code\":-32700,\"message\":\"Top-level object parse error\"},\"id\":null}\n"));
    BOOST_CHECK(Post(R"({"id":3})") == Reply(400, "{\"result\":null,\"error\":{\"code\":-32600,\"message\":\"Missing method\"},\"id\":3}\n"));
    BOOST_CHECK(Post(R"({"method":5,"id":3})") == Reply(400, "{\"result\":null,\"error\":{\"code\":-32600,\"message\":\"Method must be a string\"},\"id\":3}\n"));
    BOOST_CHECK(Post(R"({"method":"echo","params":5,"id":3})") ==
                Reply(400, "{\"result\":null,\"error\":{\"code\":-32600,\"message\":\"Params must be an array or object\"},\"id\":3}\n"));
    BOOST_CHECK(Post(R"({"jsonrpc":"3.0","method":"echo","id":3})") ==
                Reply(400, "{\"result\":null,\"error\":{\"code\":-32600,\"message\":\"JSON-RPC version not supported\"},\"id\":3}\n"));
    BOOST_CHECK(Post(R"({"jsonrpc":2,"method":"echo","id":3})") ==
                Reply(400, "{\"result\":null,\"error\":{\"code\":-32600,\"message\":\"jsonrpc field must be a string\"},\"id\":3}\n"));
    // Known to be 2.0 before the error: the reply has the 2.0 shape.
    BOOST_CHECK(Post(R"({"jsonrpc":"2.0","method":5,"id":3})") ==
                Reply(400, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"Method must be a string\"},\"id\":3}\n"));
}

BOOST_FIXTURE_TEST_CASE(jsonrpc2_single_requests, TableFixture)
{
    BOOST_CHECK(Post(R"({"jsonrpc":"2.0","method":"echo","params":[true],"id":1})") ==
                Reply(200, "{\"jsonrpc\":\"2.0\",\"result\":[true],\"id\":1}\n"));
    // Errors of the call itself are HTTP 200 in 2.0, and there is no "result".
    BOOST_CHECK(Post(R"({"jsonrpc":"2.0","method":"nosuch","id":1})") ==
                Reply(200, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32601,\"message\":\"Method not found\"},\"id\":1}\n"));
    BOOST_CHECK(Post(R"({"jsonrpc":"2.0","method":"fail","id":null})") ==
                Reply(200, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-8,\"message\":\"bad thing\"},\"id\":null}\n"));
    // Notifications run but get no reply, even when they fail.
    BOOST_CHECK(Post(R"({"jsonrpc":"2.0","method":"echo"})") == Reply(204, ""));
    BOOST_CHECK(Post(R"({"jsonrpc":"2.0","method":"fail"})") == Reply(204, ""));
}

BOOST_FIXTURE_TEST_CASE(batches, TableFixture)
{
    const auto [status, body] = Post(R"([
        {"method":"echo","params":[1],"id":1},
        {"jsonrpc":"2.0","method":"fail","id":2},
        {"jsonrpc":"2.0","method":"echo","params":[9]},
        7,
        {"method":"nosuch","id":5}
    ])");
    BOOST_CHECK_EQUAL(status, 200);
    BOOST_CHECK_EQUAL(body,
                      "[{\"result\":[1],\"error\":null,\"id\":1},"
                      "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-8,\"message\":\"bad thing\"},\"id\":2},"
                      "{\"result\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid Request object\"},\"id\":null},"
                      "{\"result\":null,\"error\":{\"code\":-32601,\"message\":\"Method not found\"},\"id\":5}]\n");
    BOOST_CHECK(Post(R"([{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"fail"}])") == Reply(204, ""));
    BOOST_CHECK(Post("[]") == Reply(200, "[]\n"));
}

BOOST_FIXTURE_TEST_CASE(named_parameters, TableFixture)
{
    BOOST_CHECK(Post(R"({"method":"echo","params":{"c":3,"a":1},"id":1})") == Reply(200, "{\"result\":[1,null,3],\"error\":null,\"id\":1}\n"));
    // Trailing parameters left out stay absent.
    BOOST_CHECK(Post(R"({"method":"echo","params":{"a":1},"id":1})") == Reply(200, "{\"result\":[1],\"error\":null,\"id\":1}\n"));
    BOOST_CHECK(Post(R"({"method":"echo","params":{"args":[1,2],"c":3},"id":1})") == Reply(200, "{\"result\":[1,2,3],\"error\":null,\"id\":1}\n"));
    BOOST_CHECK(Post(R"({"method":"echo","params":{"zz":1,"d":2,"a":0},"id":1})") ==
                Reply(500, "{\"result\":null,\"error\":{\"code\":-8,\"message\":\"Unknown named parameter d\"},\"id\":1}\n"));
    BOOST_CHECK(Post(R"({"method":"echo","params":{"args":[1],"a":2},"id":1})") ==
                Reply(500, "{\"result\":null,\"error\":{\"code\":-8,\"message\":\"Parameter a specified twice both as positional and named argument\"},\"id\":1}\n"));
    BOOST_CHECK(Post(R"({"jsonrpc":"2.0","method":"echo","params":{"x":1},"id":1})") ==
                Reply(200, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-8,\"message\":\"Unknown named parameter x\"},\"id\":1}\n"));
}

BOOST_FIXTURE_TEST_CASE(nesting_depth, TableFixture)
{
    // Depth counts every open array and object, the request object too, as
    // upstream: 512 is served, 513 and beyond is a parse error, however
    // deep, and never reaches a handler or the reply writer.
    const std::string id_511 = Nest(511, "1");
    const std::string params_511 = Nest(510, "1");
    struct Case {
        std::string body;
        Reply expected;
    };
    const std::vector<Case> cases{
        {R"({"method":"echo","id":)" + id_511 + "}", {200, "{\"result\":[],\"error\":null,\"id\":" + id_511 + "}\n"}},
        {R"({"method":"echo","id":)" + Nest(512, "1") + "}", PARSE_ERROR},
        {R"({"method":"echo","id":)" + Nest(20'000, "1") + "}", PARSE_ERROR},
        {R"({"method":"echo","id":)" + Nest(131'000, "1") + "}", PARSE_ERROR},
        {R"({"method":"echo","id":)" + Nest(511, "1", /*objects=*/true) + "}",
         {200, "{\"result\":[],\"error\":null,\"id\":" + Nest(511, "1", /*objects=*/true) + "}\n"}},
        {R"({"method":"echo","id":)" + Nest(512, "1", /*objects=*/true) + "}", PARSE_ERROR},
        {R"({"method":"echo","params":[)" + params_511 + "],\"id\":1}",
         {200, "{\"result\":[" + params_511 + "],\"error\":null,\"id\":1}\n"}},
        {R"({"method":"echo","params":[)" + Nest(511, "1") + "],\"id\":1}", PARSE_ERROR},
        {R"({"method":"echo","params":[)" + Nest(20'000, "1") + "],\"id\":1}", PARSE_ERROR},
        {R"({"method":"echo","params":[)" + Nest(131'000, "1") + "],\"id\":1}", PARSE_ERROR},
        {R"({"method":"echo","params":{"a":)" + Nest(511, "1", /*objects=*/true) + "},\"id\":1}", PARSE_ERROR},
        // A batch is one more level.
        {R"([{"method":"echo","id":)" + Nest(510, "1") + "}]", {200, "[{\"result\":[],\"error\":null,\"id\":" + Nest(510, "1") + "}]\n"}},
        {R"([{"method":"echo","id":)" + Nest(511, "1") + "}]", PARSE_ERROR},
        // Refused as soon as the text is too deep, closed or not.
        {std::string(131'000, '['), PARSE_ERROR},
        {Nest(513, ""), PARSE_ERROR},
    };
    for (size_t i = 0; i < cases.size(); ++i) {
        BOOST_TEST_CONTEXT("case " << i) BOOST_CHECK(Post(cases[i].body) == cases[i].expected);
    }
}

BOOST_FIXTURE_TEST_CASE(duplicate_keys, TableFixture)
{
    int runs = 0;
    table.Register({"test", "count", {"a"}, "count\n", [&runs](const JSONRPCRequest&) -> json { return ++runs; }});
    auto refused = [](const std::string& key) {
        return Reply(400, "{\"result\":null,\"error\":{\"code\":-32600,\"message\":\"Duplicate key in JSON object: \\\"" + key +
                              "\\\"\"},\"id\":null}\n");
    };
    struct Case {
        std::string body;
        Reply expected;
    };
    // A name twice in any object of the body refuses the whole body; none
    // of it runs, whichever occurrence a reader would have taken.
    const std::vector<Case> cases{
        {R"({"method":"echo","method":"count","id":1})", refused("method")},
        {R"({"method":"count","method":"echo","id":1})", refused("method")},
        {R"({"method":"count","id":1,"id":2})", refused("id")},
        {R"({"jsonrpc":"2.0","method":"count","jsonrpc":"1.0","id":1})", refused("jsonrpc")},
        {R"({"method":"count","params":[],"params":{"a":1},"id":1})", refused("params")},
        {R"({"method":"count","params":{"a":1,"a":2},"id":1})", refused("a")},
        {R"({"method":"count","params":[{"x":{"y":1,"y":1}}],"id":1})", refused("y")},
        {R"({"method":"count","id":{"k":1,"k":1}})", refused("k")},
        {R"([{"method":"count","id":1},{"method":"count","method":"count","id":2}])", refused("method")},
        // An escape and the UTF-8 it stands for are the same name.
        {"{\"method\":\"count\",\"\\u00e9\":1,\"\xc3\xa9\":2,\"id\":1}", refused("\xc3\xa9")},
        // The same name in different objects is no repetition.
        {R"({"method":"echo","params":[{"method":1},{"method":2}],"id":{"method":3}})",
         {200, "{\"result\":[{\"method\":1},{\"method\":2}],\"error\":null,\"id\":{\"method\":3}}\n"}},
    };
    for (size_t i = 0; i < cases.size(); ++i) {
        BOOST_TEST_CONTEXT("case " << i) BOOST_CHECK(Post(cases[i].body) == cases[i].expected);
    }
    BOOST_CHECK_EQUAL(runs, 0);
}

BOOST_AUTO_TEST_CASE(parse_json_refusals)
{
    using Kind = JSONParseError::Kind;
    struct Case {
        std::string text;
        std::optional<Kind> refused; // nullopt: parsed, and written back as is
    };
    const std::vector<Case> cases{
        {Nest(512, "0.10"), std::nullopt},
        {Nest(512, ""), std::nullopt},
        {Nest(512, "1", /*objects=*/true), std::nullopt},
        {Nest(513, ""), Kind::TOO_DEEP},
        {Nest(513, "1", /*objects=*/true), Kind::TOO_DEEP},
        {Nest(100'000, ""), Kind::TOO_DEEP},
        {"[" + Nest(512, "") + "", Kind::TOO_DEEP},
        {Nest(511, "") + "]", Kind::SYNTAX},
        {"[1,", Kind::SYNTAX},
        {"", Kind::SYNTAX},
        {R"({"a":1,"b":{"a":2}})", std::nullopt},
        {R"({"a":1,"a":1})", Kind::DUPLICATE_KEY},
        {R"([{"b":[{"a":1,"b":2,"a":3}]}])", Kind::DUPLICATE_KEY},
    };
    for (size_t i = 0; i < cases.size(); ++i) {
        BOOST_TEST_CONTEXT("case " << i)
        {
            JSONParseError error;
            const auto value = ParseJSON(cases[i].text, JSONNumbers::KEEP_TEXT, &error);
            BOOST_CHECK_EQUAL(value.has_value(), !cases[i].refused);
            if (value) BOOST_CHECK_EQUAL(WriteJSON(*value), cases[i].text);
            if (cases[i].refused) BOOST_CHECK(error.kind == *cases[i].refused);
            if (error.kind == Kind::DUPLICATE_KEY) BOOST_CHECK_EQUAL(error.key, "a");
        }
    }
    // The server reads numbers as doubles, as handlers expect.
    BOOST_CHECK(ParseJSON("[0.5]", JSONNumbers::DOUBLE)->at(0).is_number_float());
    BOOST_CHECK(ParseJSON("[0.5]", JSONNumbers::KEEP_TEXT)->at(0).is_binary());
}

BOOST_FIXTURE_TEST_CASE(wrong_parameter_types, TableFixture)
{
    // Reads its parameters with nlohmann's get<T>(), as the node's handlers do.
    table.Register({"test", "typed", {"flag", "count", "name"}, "typed ( flag count name )\n", [](const JSONRPCRequest& r) -> json {
                        const bool flag = r.params.size() > 0 && r.params[0].get<bool>();
                        const int64_t count = r.params.size() > 1 ? r.params[1].get<int64_t>() : 0;
                        const std::string name = r.params.size() > 2 ? r.params[2].get<std::string>() : "";
                        return json{flag, count, name};
                    }});
    BOOST_CHECK(Post(R"({"method":"typed","params":[true,2,"x"],"id":1})") ==
                Reply(200, "{\"result\":[true,2,\"x\"],\"error\":null,\"id\":1}\n"));
    // Core's RPC_TYPE_ERROR and wording, with Core's type names.
    const auto type_error = [](const std::string& actual, const std::string& expected) {
        return Reply(500, "{\"result\":null,\"error\":{\"code\":-3,\"message\":\"JSON value of type " + actual +
                              " is not of expected type " + expected + "\"},\"id\":1}\n");
    };
    BOOST_CHECK(Post(R"({"method":"typed","params":["yes"],"id":1})") == type_error("string", "bool"));
    BOOST_CHECK(Post(R"({"method":"typed","params":[1],"id":1})") == type_error("number", "bool"));
    BOOST_CHECK(Post(R"({"method":"typed","params":[null],"id":1})") == type_error("null", "bool"));
    BOOST_CHECK(Post(R"({"method":"typed","params":[false,"2"],"id":1})") == type_error("string", "number"));
    BOOST_CHECK(Post(R"({"method":"typed","params":[false,[2]],"id":1})") == type_error("array", "number"));
    BOOST_CHECK(Post(R"({"method":"typed","params":[false,true],"id":1})") == type_error("bool", "number"));
    BOOST_CHECK(Post(R"({"method":"typed","params":[false,2,{"a":1}],"id":1})") == type_error("object", "string"));

    BOOST_CHECK_EQUAL(JSONTypeName(json(nullptr)), "null");
    BOOST_CHECK_EQUAL(JSONTypeName(json(true)), "bool");
    BOOST_CHECK_EQUAL(JSONTypeName(json(1.5)), "number");
    BOOST_CHECK_EQUAL(JSONTypeName(JSONRawNumber("1.50000000")), "number");
    BOOST_CHECK_EQUAL(JSONTypeName(json("x")), "string");
    BOOST_CHECK_EQUAL(JSONTypeName(json::array()), "array");
    BOOST_CHECK_EQUAL(JSONTypeName(json::object()), "object");
}

BOOST_FIXTURE_TEST_CASE(too_many_parameters_answer_with_help, TableFixture)
{
    BOOST_CHECK(Post(R"({"method":"stop","params":[1],"id":1})") ==
                Reply(500, "{\"result\":null,\"error\":{\"code\":-1,\"message\":\"stop\\n\\nStops the node.\"},\"id\":1}\n"));
}

BOOST_FIXTURE_TEST_CASE(help, TableFixture)
{
    BOOST_CHECK_EQUAL(table.HelpText(""), "== Control ==\nhelp ( \"command\" )\nstop\n\n== Test ==\necho ( a b c )\nfail\nthrow\nunwritable");
    BOOST_CHECK_EQUAL(table.HelpText("echo"), "echo ( a b c )\n\nReturns its parameters.");
    BOOST_CHECK_EQUAL(table.HelpText("nosuch"), "help: unknown command: nosuch");
    BOOST_CHECK(Post(R"({"method":"help","params":["stop"],"id":1})") == Reply(200, "{\"result\":\"stop\\n\\nStops the node.\",\"error\":null,\"id\":1}\n"));
    BOOST_CHECK(Post(R"({"method":"help","params":{"command":"fail"},"id":1})") == Reply(200, "{\"result\":\"fail\\n\",\"error\":null,\"id\":1}\n"));
    BOOST_CHECK_THROW(table.Register({"test", "echo", {}, "", {}}), std::logic_error);
}

BOOST_FIXTURE_TEST_CASE(warmup, TableFixture)
{
    table.SetWarmup(true, "Loading block index…");
    std::string status;
    BOOST_CHECK(table.IsInWarmup(&status));
    BOOST_CHECK_EQUAL(status, "Loading block index…");
    BOOST_CHECK(Post(R"({"method":"echo","id":1})") ==
                Reply(500, "{\"result\":null,\"error\":{\"code\":-28,\"message\":\"Loading block index…\"},\"id\":1}\n"));
    // Checked before the lookup, as upstream: unknown methods warm up too.
    BOOST_CHECK(Post(R"({"method":"nosuch","id":1})").second.find("-28") != std::string::npos);
    BOOST_CHECK_EQUAL(Post(R"({"method":"stop","id":1})").first, 200);
    BOOST_CHECK_EQUAL(Post(R"({"method":"help","id":1})").first, 200);
    table.SetWarmupExempt({"echo"});
    BOOST_CHECK_EQUAL(Post(R"({"method":"echo","id":1})").first, 200);
    BOOST_CHECK_EQUAL(Post(R"({"method":"stop","id":1})").first, 500);
    table.SetWarmup(false, "");
    BOOST_CHECK_EQUAL(Post(R"({"method":"stop","id":1})").first, 200);
}

BOOST_AUTO_TEST_CASE(json_writer)
{
    const json value = json::parse(R"({"b":[],"a":{"x":[1,2.5,"q\"\\\n\u0001\u007f é"],"y":{}},"c":null,"d":false})");
    BOOST_CHECK_EQUAL(WriteJSON(value), R"({"a":{"x":[1,2.5,"q\"\\\n\u0001\u007f é"],"y":{}},"b":[],"c":null,"d":false})");
    BOOST_CHECK_EQUAL(WriteJSON(value, 2),
                      "{\n"
                      "  \"a\": {\n"
                      "    \"x\": [\n"
                      "      1,\n"
                      "      2.5,\n"
                      "      \"q\\\"\\\\\\n\\u0001\\u007f é\"\n"
                      "    ],\n"
                      "    \"y\": {\n"
                      "    }\n"
                      "  },\n"
                      "  \"b\": [\n"
                      "  ],\n"
                      "  \"c\": null,\n"
                      "  \"d\": false\n"
                      "}");
    BOOST_CHECK_EQUAL(WriteJSON(json(0.1)), "0.1");
    BOOST_CHECK_EQUAL(WriteJSON(json(4.656542373906925e-10)), "4.656542373906925e-10");
    BOOST_CHECK_EQUAL(WriteJSON(json(21000000.0)), "21000000");
    BOOST_CHECK_EQUAL(WriteJSON(json(-9223372036854775807LL - 1)), "-9223372036854775808");
    BOOST_CHECK_EQUAL(WriteJSON(json(18446744073709551615ULL)), "18446744073709551615");
}

BOOST_AUTO_TEST_CASE(raw_numbers)
{
    BOOST_CHECK_EQUAL(WriteJSON(ValueFromAmount(10000)), "0.00010000");
    BOOST_CHECK_EQUAL(WriteJSON(ValueFromAmount(2'100'000'000'000'000)), "21000000.00000000");
    BOOST_CHECK_EQUAL(WriteJSON(ValueFromAmount(-150'000'000)), "-1.50000000");
    BOOST_CHECK_EQUAL(WriteJSON(ValueFromAmount(0)), "0.00000000");
    BOOST_CHECK_EQUAL(WriteJSON(json{{"total", ValueFromAmount(1'987'654'312'345'678)}}), "{\"total\":19876543.12345678}");
    BOOST_CHECK_EQUAL(*JSONRawNumberText(ValueFromAmount(1)), "0.00000001");
    BOOST_CHECK(!JSONRawNumberText(json(1)));
    BOOST_CHECK_THROW(JSONRawNumber("1.2.3"), std::invalid_argument);
    BOOST_CHECK_THROW(JSONRawNumber("\"1\""), std::invalid_argument);

    const auto parsed = ParseJSONKeepNumbers(R"({"amount":0.00010000,"n":[1,-2,123456789012345678901234567890,"s"],"x":null})");
    BOOST_REQUIRE(parsed);
    BOOST_CHECK_EQUAL(WriteJSON(*parsed), R"({"amount":0.00010000,"n":[1,-2,123456789012345678901234567890,"s"],"x":null})");
    BOOST_CHECK((*parsed)["n"][0].is_number_integer());
    BOOST_CHECK(!ParseJSONKeepNumbers("{\"a\":"));
    BOOST_CHECK(!ParseJSONKeepNumbers("1 2"));
    BOOST_CHECK(!ParseJSONKeepNumbers("abc"));
    BOOST_CHECK_EQUAL(WriteJSON(*ParseJSONKeepNumbers("\"x\"")), "\"x\"");
}

BOOST_AUTO_TEST_CASE(base64)
{
    // RFC 4648 section 10.
    const std::vector<std::pair<std::string, std::string>> vectors{
        {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, encoded] : vectors) {
        BOOST_CHECK_EQUAL(EncodeBase64(plain), encoded);
        BOOST_CHECK_EQUAL(DecodeBase64(encoded).value_or("<invalid>"), plain);
    }
    std::string all_bytes;
    for (int i = 0; i < 256; ++i) all_bytes += static_cast<char>(i);
    for (size_t length = 0; length <= all_bytes.size(); length += 37) {
        const std::string data = all_bytes.substr(0, length);
        BOOST_CHECK(DecodeBase64(EncodeBase64(data)) == data);
    }
    for (const char* bad : {"Zg", "Zg=", "Z===", "Zg=a", "Zm9v!A==", "Zg==Zg==", "=Zm9", " Zm9"}) {
        BOOST_CHECK_MESSAGE(!DecodeBase64(bad), bad);
    }
    BOOST_CHECK(TimingResistantEqual("user:pass", "user:pass"));
    BOOST_CHECK(!TimingResistantEqual("user:pas", "user:pass"));
    BOOST_CHECK(!TimingResistantEqual("user:passs", "user:pass"));
    BOOST_CHECK(!TimingResistantEqual("user:pasS", "user:pass"));
    BOOST_CHECK(!TimingResistantEqual("", "x"));
    BOOST_CHECK(TimingResistantEqual("", ""));
}

BOOST_FIXTURE_TEST_CASE(auth_cookie, TempDirFixture)
{
    const auto cookie = m_path / ".cookie";
    std::string credentials;
    BOOST_REQUIRE(GenerateAuthCookie(cookie, credentials));
    BOOST_CHECK(std::regex_match(credentials, std::regex{"__cookie__:[0-9a-f]{64}"}));
    BOOST_CHECK_EQUAL(ReadFileToString(cookie), credentials); // no newline
    BOOST_CHECK_EQUAL(ReadAuthCookie(cookie).value_or(""), credentials);
    struct stat info{};
    BOOST_REQUIRE_EQUAL(stat(cookie.c_str(), &info), 0);
    BOOST_CHECK_EQUAL(info.st_mode & 0777, 0600u);
    BOOST_CHECK(!std::filesystem::exists(m_path / ".cookie.tmp"));

    std::string second;
    BOOST_REQUIRE(GenerateAuthCookie(cookie, second));
    BOOST_CHECK(second != credentials);
    BOOST_CHECK_EQUAL(ReadAuthCookie(cookie).value_or(""), second);

    DeleteAuthCookie(cookie);
    BOOST_CHECK(!std::filesystem::exists(cookie));
    BOOST_CHECK(!ReadAuthCookie(cookie));
    DeleteAuthCookie(cookie);
    BOOST_CHECK(!GenerateAuthCookie(m_path / "missing_dir" / ".cookie", credentials));
}

BOOST_AUTO_TEST_CASE(host_port_and_subnets)
{
    std::string host;
    uint16_t port = 1;
    BOOST_CHECK(SplitHostPort("127.0.0.1", host, port) && host == "127.0.0.1" && port == 1);
    BOOST_CHECK(SplitHostPort("127.0.0.1:8332", host, port) && host == "127.0.0.1" && port == 8332);
    BOOST_CHECK(SplitHostPort("::1", host, port) && host == "::1" && port == 8332);
    BOOST_CHECK(SplitHostPort("[::1]:18443", host, port) && host == "::1" && port == 18443);
    BOOST_CHECK(SplitHostPort("[::1]", host, port) && host == "::1" && port == 18443);
    BOOST_CHECK(SplitHostPort("localhost:1", host, port) && host == "localhost" && port == 1);
    BOOST_CHECK(!SplitHostPort("localhost:0", host, port));
    BOOST_CHECK(!SplitHostPort("localhost:65536", host, port));
    BOOST_CHECK(!SplitHostPort("localhost:x", host, port));

    auto v4 = [](const char* text) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        inet_pton(AF_INET, text, &address.sin_addr);
        return address;
    };
    auto v6 = [](const char* text) {
        sockaddr_in6 address{};
        address.sin6_family = AF_INET6;
        inet_pton(AF_INET6, text, &address.sin6_addr);
        return address;
    };
    auto contains = [](const char* subnet, const auto& address) {
        return AllowedSubnet::Parse(subnet)->Contains(reinterpret_cast<const sockaddr*>(&address));
    };
    BOOST_CHECK(contains("10.1.2.0/24", v4("10.1.2.200")));
    BOOST_CHECK(!contains("10.1.2.0/24", v4("10.1.3.1")));
    BOOST_CHECK(contains("10.1.2.0/255.255.254.0", v4("10.1.3.1")));
    BOOST_CHECK(contains("10.1.2.3", v4("10.1.2.3")));
    BOOST_CHECK(!contains("10.1.2.3", v4("10.1.2.4")));
    BOOST_CHECK(contains("0.0.0.0/0", v4("8.8.8.8")));
    // An IPv4 peer on a dual-stack socket arrives IPv4-mapped.
    BOOST_CHECK(contains("10.1.2.0/24", v6("::ffff:10.1.2.9")));
    BOOST_CHECK(contains("fe80::/10", v6("fe80::1")));
    BOOST_CHECK(!contains("fe80::/10", v6("2001:db8::1")));
    for (const char* bad : {"", "10.1.2.0/33", "10.1.2.0/255.0.255.0", "10.1.2.0/ffff::", "host", "1.2.3.4/", "::/129"}) {
        BOOST_CHECK_MESSAGE(!AllowedSubnet::Parse(bad), bad);
    }
    const auto loopback4 = v4("127.8.9.10");
    const auto loopback6 = v6("::1");
    const auto other = v4("128.0.0.1");
    BOOST_CHECK(AllowedSubnet::IsLoopback(reinterpret_cast<const sockaddr*>(&loopback4)));
    BOOST_CHECK(AllowedSubnet::IsLoopback(reinterpret_cast<const sockaddr*>(&loopback6)));
    BOOST_CHECK(!AllowedSubnet::IsLoopback(reinterpret_cast<const sockaddr*>(&other)));
}

BOOST_AUTO_TEST_CASE(cli_arguments_and_output)
{
    BOOST_CHECK_EQUAL(WriteJSON(BuildCliParams("getblockhash", {"5"}, false)), "[5]");
    BOOST_CHECK_EQUAL(WriteJSON(BuildCliParams("x", {"true", "abc", "[1,\"a\"]", "{\"k\":0.10}", "null", "-"}, false)),
                      R"([true,"abc",[1,"a"],{"k":0.10},null,"-"])");
    // Listed parameters stay strings however they look.
    BOOST_CHECK_EQUAL(WriteJSON(BuildCliParams("dumptxoutset", {"123", "latest"}, false)), R"(["123","latest"])");
    BOOST_CHECK_EQUAL(WriteJSON(BuildCliParams("help", {"1"}, false)), R"(["1"])");
    BOOST_CHECK_EQUAL(WriteJSON(BuildCliParams("echo", {"1", "[2]"}, false)), R"(["1","[2]"])");
    BOOST_CHECK_EQUAL(WriteJSON(BuildCliParams("dumptxoutset", {"path=7", "x=[1]"}, true)), R"({"path":"7","x":[1]})");
    BOOST_CHECK_EQUAL(WriteJSON(BuildCliParams("dumptxoutset", {"9", "type=latest", "8"}, true)), R"({"args":["9","8"],"type":"latest"})");
    BOOST_CHECK_EQUAL(WriteJSON(BuildCliParams("m", {"a==b"}, true)), R"({"a":"=b"})");
    BOOST_CHECK_EXCEPTION(BuildCliParams("m", {"a=1", "a=2"}, true), std::runtime_error,
                          [](const std::runtime_error& e) { return std::string{e.what()} == "Parameter a specified multiple times"; });

    auto output = [](const char* reply) { return FormatCliReply(*ParseJSONKeepNumbers(reply)); };
    auto check = [](const CliOutput& got, const std::string& text, bool to_stderr, int exit_code) {
        BOOST_CHECK_EQUAL(got.text, text);
        BOOST_CHECK_EQUAL(got.to_stderr, to_stderr);
        BOOST_CHECK_EQUAL(got.exit_code, exit_code);
    };
    check(output(R"({"result":"000abc","error":null,"id":1})"), "000abc", false, 0);
    check(output(R"({"result":null,"error":null,"id":1})"), "", false, 0);
    check(output(R"({"jsonrpc":"2.0","result":12,"id":1})"), "12", false, 0);
    check(output(R"({"result":{"total_amount":21000000.00000000,"list":[]},"error":null,"id":1})"),
          "{\n  \"list\": [\n  ],\n  \"total_amount\": 21000000.00000000\n}", false, 0);
    check(output(R"({"result":null,"error":{"code":-8,"message":"Block height out of range"},"id":1})"),
          "error code: -8\nerror message:\nBlock height out of range", true, 1);
    check(output(R"({"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1})"),
          "error code: -32601\nerror message:\nMethod not found", true, 1);
    check(output(R"({"result":null,"error":"odd","id":1})"), "error: \"odd\"", true, 1);

    BOOST_CHECK_EQUAL(CliNetworkForChain("main")->rpc_port, 8332);
    BOOST_CHECK_EQUAL(CliNetworkForChain("test")->data_dir_name, "testnet3");
    BOOST_CHECK_EQUAL(CliNetworkForChain("testnet4")->rpc_port, 48332);
    BOOST_CHECK_EQUAL(CliNetworkForChain("signet")->rpc_port, 38332);
    BOOST_CHECK_EQUAL(CliNetworkForChain("regtest")->rpc_port, 18443);
    BOOST_CHECK(!CliNetworkForChain("nonet"));
}

namespace {

// Long enough for a loaded sanitizer build; reached only when the scenario
// a test waits for never happens.
constexpr auto WAIT_LIMIT{std::chrono::seconds{60}};

// Waits for done() to hold, instead of sleeping and hoping; false when it
// still does not hold after WAIT_LIMIT.
template <typename Done>
bool WaitUntil(Done done)
{
    const auto deadline = std::chrono::steady_clock::now() + WAIT_LIMIT;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds{5});
    }
    return true;
}

// A server on 127.0.0.1 with an OS-chosen port, answering through an
// RPCTable that has a slow method, a gate the test opens, and "stop".
struct ServerFixture : TempDirFixture {
    RPCTable table;
    HTTPRPCServer server;
    uint16_t port{0};
    std::promise<void> gate;
    std::shared_future<void> gate_open{gate.get_future().share()};
    std::promise<void> stop_called;
    // Replies the table gave with RPC_IN_WARMUP, counted once they are built
    // so that a count seen means the warmup was really met.
    std::atomic<int> warmup_replies{0};

    ServerFixture()
    {
        table.Register({"test", "getblockcount", {}, "getblockcount\n", [](const JSONRPCRequest&) -> json { return 42; }});
        table.Register({"test", "echojson", {"a", "b"}, "echojson\n", [](const JSONRPCRequest& r) { return r.params; }});
        table.Register({"test", "getamount", {}, "getamount\n", [](const JSONRPCRequest&) { return json{{"total_amount", ValueFromAmount(10000)}, {"list", json::array()}}; }});
        table.Register({"test", "fail", {}, "fail\n", [](const JSONRPCRequest&) -> json { throw JSONRPCError{RPC_INVALID_PARAMETER, "Block height out of range"}; }});
        table.Register({"test", "waitgate", {}, "waitgate\n", [this](const JSONRPCRequest&) -> json {
                            gate_open.wait();
                            return "opened";
                        }});
        table.Register({"control", "stop", {}, "stop\n", [this](const JSONRPCRequest&) -> json {
                            stop_called.set_value();
                            return "Bitcoin Core stopping";
                        }});
        HTTPRPCServer::Options options;
        options.bind_addresses = {"127.0.0.1"};
        options.port = 0;
        options.auth_credentials = {"user:secret", "__cookie__:abc"};
        options.worker_threads = 2;
        // Beyond WAIT_LIMIT: only a client that hung up, never the idle
        // timeout, may close a connection while a test waits.
        options.server_timeout_seconds = 600;
        std::string error;
        const auto handler = [this](const std::string& body, int& status) {
            std::string reply = table.HandleHTTPBody(body, status);
            if (reply.find("\"code\":" + std::to_string(RPC_IN_WARMUP) + ",") != std::string::npos) ++warmup_replies;
            return reply;
        };
        BOOST_REQUIRE_MESSAGE(server.Start(options, handler, error), error);
        BOOST_REQUIRE_EQUAL(server.BoundPorts().size(), 1u);
        port = server.BoundPorts()[0];
        BOOST_REQUIRE(port != 0);
    }
    ~ServerFixture()
    {
        try {
            gate.set_value();
        } catch (const std::future_error&) {
        }
        server.Stop();
    }

    HTTPPostResponse Post(const std::string& body, const std::string& credentials = "user:secret", const std::string& path = "/") const
    {
        HTTPPostRequest request;
        request.host = "127.0.0.1";
        request.port = port;
        request.path = path;
        request.credentials = credentials;
        request.body = body;
        request.timeout_seconds = 30;
        return HTTPPost(request);
    }

    // bitcoin-cli against this server; returns exit code, stdout, stderr.
    std::tuple<int, std::string, std::string> Cli(std::vector<std::string> args, const std::string& input = "") const
    {
        args.insert(args.begin(), {"bitcoin-cli", "-datadir=" + m_path.string(), "-rpcport=" + std::to_string(port)});
        std::vector<const char*> argv;
        for (const auto& arg : args) argv.push_back(arg.c_str());
        std::istringstream in{input};
        std::ostringstream out, err;
        const int code = RunBitcoinCli(static_cast<int>(argv.size()), argv.data(), in, out, err);
        return {code, out.str(), err.str()};
    }
};

using CliResult = std::tuple<int, std::string, std::string>;

} // namespace

BOOST_FIXTURE_TEST_CASE(http_server_end_to_end, ServerFixture)
{
    auto ok = Post(R"({"method":"getblockcount","id":1})");
    BOOST_CHECK_EQUAL(ok.status, 200);
    BOOST_CHECK_EQUAL(ok.body, "{\"result\":42,\"error\":null,\"id\":1}\n");
    BOOST_CHECK_EQUAL(Post(R"({"method":"getblockcount","id":1})", "__cookie__:abc").status, 200);

    const auto start = std::chrono::steady_clock::now();
    auto wrong = Post(R"({"method":"getblockcount","id":1})", "user:wrong");
    BOOST_CHECK_EQUAL(wrong.status, 401);
    BOOST_CHECK_EQUAL(wrong.body, "");
    BOOST_CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds{250});
    BOOST_CHECK_EQUAL(Post(R"({"method":"getblockcount","id":1})", "").status, 401);

    auto batch = Post(R"([{"method":"getblockcount","id":1},{"jsonrpc":"2.0","method":"nosuch","id":2}])");
    BOOST_CHECK_EQUAL(batch.status, 200);
    BOOST_CHECK_EQUAL(batch.body, "[{\"result\":42,\"error\":null,\"id\":1},{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32601,\"message\":\"Method not found\"},\"id\":2}]\n");
    BOOST_CHECK_EQUAL(Post(R"({"method":"nosuch","id":1})").status, 404);
    BOOST_CHECK_EQUAL(Post(R"({"jsonrpc":"2.0","method":"getblockcount"})").status, 204);
    BOOST_CHECK_EQUAL(Post(R"({"method":"getblockcount","id":1})", "user:secret", "/other").status, 404);
    BOOST_CHECK_EQUAL(Post("{").status, 500);
}

BOOST_FIXTURE_TEST_CASE(slow_call_does_not_block_others, ServerFixture)
{
    auto slow = std::async(std::launch::async, [this] { return Post(R"({"method":"waitgate","id":1})"); });
    // Several quick calls complete while a worker sits in waitgate.
    for (int i = 0; i < 3; ++i) BOOST_CHECK_EQUAL(Post(R"({"method":"getblockcount","id":1})").status, 200);
    BOOST_CHECK(slow.wait_for(std::chrono::milliseconds{0}) == std::future_status::timeout);
    gate.set_value();
    BOOST_CHECK_EQUAL(slow.get().body, "{\"result\":\"opened\",\"error\":null,\"id\":1}\n");
}

BOOST_FIXTURE_TEST_CASE(stop_reply_is_delivered, ServerFixture)
{
    auto call = std::async(std::launch::async, [this] { return Post(R"({"method":"stop","id":1})"); });
    stop_called.get_future().wait();
    // What the node does on "stop": stop the server right away.
    server.Stop();
    const auto reply = call.get();
    BOOST_CHECK_EQUAL(reply.status, 200);
    BOOST_CHECK_EQUAL(reply.body, "{\"result\":\"Bitcoin Core stopping\",\"error\":null,\"id\":1}\n");
    // Nothing listens any more.
    const auto after = Post(R"({"method":"getblockcount","id":1})");
    BOOST_CHECK_EQUAL(after.status, 0);
}

BOOST_FIXTURE_TEST_CASE(client_hanging_up_does_not_delay_stop, ServerFixture)
{
    // A reply too big for the socket buffers, to a client that has gone:
    // the write fails and evhttp frees the connection without completing
    // the request. Stop() must not wait for it.
    std::promise<void> handler_started;
    table.Register({"test", "big", {}, "big\n", [&](const JSONRPCRequest&) -> json {
                        handler_started.set_value();
                        gate_open.wait();
                        return std::string(20'000'000, 'x');
                    }});
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    BOOST_REQUIRE(fd >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    BOOST_REQUIRE_EQUAL(connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
    const std::string body = R"({"method":"big","id":1})";
    const std::string request = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic " + EncodeBase64("user:secret") +
                                "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    BOOST_REQUIRE_EQUAL(send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
    // Hanging up before the server has read the request would test nothing:
    // evhttp would drop the connection and no handler would run.
    BOOST_REQUIRE(handler_started.get_future().wait_for(WAIT_LIMIT) == std::future_status::ready);
    close(fd);
    gate.set_value();
    // The write to the closed socket failed, or the test would pass on a
    // reply that was never written.
    BOOST_REQUIRE(WaitUntil([&] { return server.RepliesLost() == 1; }));
    BOOST_CHECK_EQUAL(Post(R"({"method":"getblockcount","id":1})").status, 200);
    // Not a timing check: a sanitizer build needs seconds just to build the
    // reply. Stop() says whether it gave up waiting on a connection, which
    // is what happened when the request, not the connection, was tracked.
    BOOST_CHECK(server.Stop());
    BOOST_CHECK_EQUAL(server.RepliesLost(), 1u);
}

// -getinfo's progress bar: one of 20 blocks per started 5%, filled then
// empty, shown below 99% only; the rest of the text around it.
BOOST_AUTO_TEST_CASE(cli_getinfo_text)
{
    const auto full = [](int n) { std::string out; while (n-- > 0) out += "\u2592"; return out; };
    const auto empty = [](int n) { std::string out; while (n-- > 0) out += "\u2591"; return out; };
    const struct {
        const char* progress;
        std::string line;
    } rows[]{
        {"0", empty(20) + " 0.0000%"},
        {"2.004553202280255e-06", full(1) + empty(20) + " 0.0002%"},
        {"0.5", full(10) + empty(10) + " 50.0000%"},
        {"0.51", full(11) + empty(10) + " 51.0000%"},
        {"0.98", full(20) + empty(1) + " 98.0000%"},
        {"0.99", "99.0000%"},
        {"1", "100.0000%"},
    };
    for (const auto& row : rows) {
        const auto info = *ParseJSONKeepNumbers(std::string{R"({"chain":"regtest","blocks":7,"headers":9,"difficulty":4.656542373906925e-10,"warnings":[],"verificationprogress":)"} + row.progress + "}");
        BOOST_CHECK_EQUAL(FormatGetInfo(info), "Chain: regtest\nBlocks: 7\nHeaders: 9\nVerification progress: " + row.line +
                                                   "\nDifficulty: 4.656542373906925e-10\n\nWarnings: (none)");
    }
    // No difficulty (a snapshot without headers); warnings one per line.
    const auto info = *ParseJSONKeepNumbers(R"({"chain":"main","blocks":840000,"headers":840000,"verificationprogress":1,"warnings":["a","b"]})");
    BOOST_CHECK_EQUAL(FormatGetInfo(info), "Chain: main\nBlocks: 840000\nHeaders: 840000\nVerification progress: 100.0000%\n\nWarnings: a\nb");
}

BOOST_AUTO_TEST_CASE(bind_failure_names_the_address)
{
    HTTPRPCServer first;
    HTTPRPCServer::Options options;
    options.bind_addresses = {"127.0.0.1"};
    options.port = 0;
    std::string error;
    BOOST_REQUIRE(first.Start(options, [](const std::string&, int& status) { status = 200; return std::string{}; }, error));
    options.port = first.BoundPorts().at(0);
    HTTPRPCServer second;
    BOOST_CHECK(!second.Start(options, [](const std::string&, int& status) { status = 200; return std::string{}; }, error));
    BOOST_CHECK_EQUAL(error, "Unable to bind any endpoint for RPC server (tried 127.0.0.1:" + std::to_string(options.port) + ")");

    options.allow_ips = {"10.0.0.0/33"};
    HTTPRPCServer third;
    BOOST_CHECK(!third.Start(options, [](const std::string&, int& status) { status = 200; return std::string{}; }, error));
    BOOST_CHECK(error.starts_with("Invalid -rpcallowip subnet specification: 10.0.0.0/33."));
}

BOOST_FIXTURE_TEST_CASE(bitcoin_cli_end_to_end, ServerFixture)
{
    BOOST_CHECK(Cli({"-rpcuser=user", "-rpcpassword=secret", "getblockcount"}) == CliResult(0, "42\n", ""));
    BOOST_CHECK(Cli({"-rpcuser=user", "-rpcpassword=secret", "echojson", "abc", "[1]"}) == CliResult(0, "[\n  \"abc\",\n  [\n    1\n  ]\n]\n", ""));
    BOOST_CHECK(Cli({"-rpcuser=user", "-rpcpassword=secret", "-named", "echojson", "b=2"}) == CliResult(0, "[\n  null,\n  2\n]\n", ""));
    BOOST_CHECK(Cli({"-rpcuser=user", "-rpcpassword=secret", "getamount"}) ==
                CliResult(0, "{\n  \"list\": [\n  ],\n  \"total_amount\": 0.00010000\n}\n", ""));
    BOOST_CHECK(Cli({"-rpcuser=user", "-rpcpassword=secret", "-stdin", "echojson"}, "x y\n7\n") == CliResult(0, "[\n  \"x y\",\n  7\n]\n", ""));
    BOOST_CHECK(Cli({"-rpcuser=user", "-stdinrpcpass", "getblockcount"}, "secret\n") == CliResult(0, "42\n", ""));
    BOOST_CHECK(Cli({"-rpcuser=user", "-rpcpassword=secret", "fail"}) ==
                CliResult(1, "", "error code: -8\nerror message:\nBlock height out of range\n"));
    BOOST_CHECK(Cli({"-rpcuser=user", "-rpcpassword=wrong", "getblockcount"}) ==
                CliResult(1, "", "error: Authorization failed: Incorrect rpcuser or rpcpassword\n"));
    BOOST_CHECK(Cli({"-rpcuser=user", "-rpcpassword=secret"}) == CliResult(1, "", "error: too few parameters (need at least command)\n"));
    BOOST_CHECK(Cli({"-foo", "getblockcount"}) == CliResult(1, "", "Error parsing command line arguments: Invalid parameter -foo\n"));

    // Credentials from bitcoin.conf, network section, and the cookie in the
    // network's subdirectory.
    std::ofstream{m_path / "bitcoin.conf"} << "rpcuser=user\n[regtest]\nrpcpassword=secret\n";
    BOOST_CHECK(Cli({"-regtest", "getblockcount"}) == CliResult(0, "42\n", ""));
    std::filesystem::remove(m_path / "bitcoin.conf");
    std::filesystem::create_directories(m_path / "regtest");
    std::ofstream{m_path / "regtest" / ".cookie"} << "__cookie__:abc";
    BOOST_CHECK(Cli({"-regtest", "getblockcount"}) == CliResult(0, "42\n", ""));
    const auto [code, out, err] = Cli({"-testnet4", "getblockcount"});
    BOOST_CHECK_EQUAL(code, 1);
    BOOST_CHECK(err.starts_with("error: Could not locate RPC credentials."));
}

BOOST_FIXTURE_TEST_CASE(bitcoin_cli_integer_options, ServerFixture)
{
    const std::string range = ": expected an integer from 0 to 2147483647\n";
    struct Case {
        std::vector<std::string> args;
        CliResult expected;
    };
    const std::vector<Case> cases{
        {{"-rpcclienttimeout=0"},          {0, "42\n", ""}},
        {{"-rpcwaittimeout=2147483647"},   {0, "42\n", ""}},
        {{"-rpcclienttimeout=abc"},        {1, "", "error: Invalid -rpcclienttimeout value 'abc'" + range}},
        {{"-rpcclienttimeout=4294967296"}, {1, "", "error: Invalid -rpcclienttimeout value '4294967296'" + range}},
        {{"-rpcwaittimeout=-1"},           {1, "", "error: Invalid -rpcwaittimeout value '-1'" + range}},
        {{"-rpcwaittimeout=1s"},           {1, "", "error: Invalid -rpcwaittimeout value '1s'" + range}},
        {{"-rpcport=70000"},               {1, "", "error: Invalid port provided in -rpcport: 70000\n"}},
    };
    for (const auto& c : cases) {
        std::vector<std::string> args{"-rpcuser=user", "-rpcpassword=secret"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        args.push_back("getblockcount");
        BOOST_TEST_CONTEXT(c.args.front()) BOOST_CHECK(Cli(args) == c.expected);
    }
}

BOOST_FIXTURE_TEST_CASE(bitcoin_cli_connection_failure_and_rpcwait, ServerFixture)
{
    // Bitcoin Core master's words; -rpcwait giving up adds its prefix.
    const std::string expected = "error: Error while attempting to communicate with server 127.0.0.1:1 (Could not connect to the server)\n\n"
                                 "Make sure the bitcoind server is running and that you are connecting to the correct RPC port.\n"
                                 "Use \"bitcoin-cli -help\" for more info.\n";
    BOOST_CHECK(Cli({"-rpcpassword=x", "-rpcport=1", "getblockcount"}) == CliResult(1, "", expected));
    BOOST_CHECK(Cli({"-rpcpassword=x", "-rpcport=1", "-rpcwait", "-rpcwaittimeout=1", "getblockcount"}) ==
                CliResult(1, "", "error: timeout on transient error: " + expected.substr(std::string{"error: "}.size())));
    // No credentials and no server: the missing server is what is reported.
    BOOST_CHECK(Cli({"-rpcport=1", "getblockcount"}) == CliResult(1, "", expected));

    // -rpcwait rides out the warmup.
    table.SetWarmup(true, "Loading block index…");
    BOOST_CHECK(Cli({"-rpcuser=user", "-rpcpassword=secret", "getblockcount"}) ==
                CliResult(1, "", "error code: -28\nerror message:\nLoading block index…\n"));
    const int warmup_replies_before = warmup_replies;
    // The timeout bounds the test should the warmup never end.
    auto waiting = std::async(std::launch::async, [this] { return Cli({"-rpcuser=user", "-rpcpassword=secret", "-rpcwait", "-rpcwaittimeout=60", "getblockcount"}); });
    // Its first call must meet the warmup: ended any earlier, the call
    // below would succeed without -rpcwait having retried anything.
    BOOST_REQUIRE(WaitUntil([&] { return warmup_replies > warmup_replies_before; }));
    table.SetWarmup(false, "");
    BOOST_CHECK(waiting.get() == CliResult(0, "42\n", ""));
}

BOOST_AUTO_TEST_SUITE_END()
