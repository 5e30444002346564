// ArgsManager: Bitcoin Core's option conventions, table by table.

#include <test/util/setup.h>
#include <util/args.h>

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <vector>

namespace {

ArgsManager MakeArgs()
{
    ArgsManager args;
    args.AddArg("-dbcache=<n>", "", ArgsManager::NONE, "o");
    args.AddArg("-debug=<c>", "", ArgsManager::NONE, "o");
    args.AddArg("-daemon", "", ArgsManager::NONE, "o");
    args.AddArg("-rpcport=<port>", "", ArgsManager::NETWORK_ONLY, "o");
    args.AddArg("-datadir=<dir>", "", ArgsManager::NONE, "o");
    args.AddArg("-conf=<file>", "", ArgsManager::NONE, "o");
    args.AddArg("-includeconf=<file>", "", ArgsManager::NONE, "o");
    args.AddArg("-regtest", "", ArgsManager::NONE, "o");
    args.AddArg("-testnet", "", ArgsManager::NONE, "o");
    args.AddArg("-testnet4", "", ArgsManager::NONE, "o");
    args.AddArg("-signet", "", ArgsManager::NONE, "o");
    args.AddArg("-chain=<c>", "", ArgsManager::NONE, "o");
    args.AddArg("-dbbatchsize=<n>", "", ArgsManager::DEBUG_ONLY, "o");
    args.AddIgnoredArg("-blocksonly", "no peer-to-peer network");
    return args;
}

bool Parse(ArgsManager& args, std::vector<const char*> argv, std::string& error)
{
    argv.insert(argv.begin(), "bitcoind");
    return args.ParseParameters(static_cast<int>(argv.size()), argv.data(), error);
}

} // namespace

BOOST_AUTO_TEST_SUITE(args_tests)

BOOST_AUTO_TEST_CASE(command_line_forms)
{
    struct Case {
        std::vector<const char*> argv;
        const char* name;
        bool is_set;
        bool negated;
        const char* value; // GetArg(name, "unset")
        bool as_bool;      // GetBoolArg(name, false)
    };
    const std::vector<Case> cases{
        //  argv                               name      set    negated value    bool
        {{},                                   "daemon", false, false, "unset", false},
        {{"-daemon"},                          "daemon", true,  false, "",      true},
        {{"-daemon=1"},                        "daemon", true,  false, "1",     true},
        {{"-daemon=0"},                        "daemon", true,  false, "0",     false},
        {{"-nodaemon"},                        "daemon", true,  true,  "0",     false},
        {{"-nodaemon=0"},                      "daemon", true,  false, "1",     true},
        {{"--daemon"},                         "daemon", true,  false, "",      true},
        {{"-dbcache=100", "-dbcache=200"},     "dbcache", true, false, "200",   true},
        {{"-daemon", "-nodaemon"},             "daemon", true,  true,  "0",     false},
    };
    for (const auto& c : cases) {
        ArgsManager args = MakeArgs();
        std::string error;
        BOOST_REQUIRE_MESSAGE(Parse(args, c.argv, error), error);
        BOOST_TEST_CONTEXT("case " << (c.argv.empty() ? "(none)" : c.argv.back()))
        {
            BOOST_CHECK_EQUAL(args.IsArgSet(c.name), c.is_set);
            BOOST_CHECK_EQUAL(args.IsArgNegated(c.name), c.negated);
            BOOST_CHECK_EQUAL(args.GetArg(c.name, "unset"), c.value);
            BOOST_CHECK_EQUAL(args.GetBoolArg(c.name, false), c.as_bool);
        }
    }
}

BOOST_AUTO_TEST_CASE(unknown_and_malformed_options)
{
    const std::vector<std::pair<std::vector<const char*>, std::string>> cases{
        {{"-foo"}, "Invalid parameter -foo"},
        {{"--foo=1"}, "Invalid parameter -foo"},
        {{"-nofoo"}, "Invalid parameter -nofoo"},
        {{"-"}, "Invalid parameter -"},
    };
    for (const auto& [argv, expected] : cases) {
        ArgsManager args = MakeArgs();
        std::string error;
        BOOST_CHECK(!Parse(args, argv, error));
        BOOST_CHECK_EQUAL(error, expected);
    }
}

BOOST_AUTO_TEST_CASE(multi_values_and_negation_clears)
{
    ArgsManager args = MakeArgs();
    std::string error;
    BOOST_REQUIRE(Parse(args, {"-debug=coindb", "-debug=rpc"}, error));
    BOOST_CHECK((args.GetArgs("debug") == std::vector<std::string>{"coindb", "rpc"}));
    ArgsManager negated = MakeArgs();
    BOOST_REQUIRE(Parse(negated, {"-debug=coindb", "-nodebug", "-debug=rpc"}, error));
    BOOST_CHECK((negated.GetArgs("debug") == std::vector<std::string>{"rpc"}));
}

// Bitcoin Core's callers name options with their dash ("-dbcache"); every
// read and ForceSetArg takes either spelling of the same option.
BOOST_AUTO_TEST_CASE(names_with_or_without_the_dash)
{
    ArgsManager args = MakeArgs();
    std::string error;
    BOOST_REQUIRE(Parse(args, {"-dbcache=300", "-debug=coindb", "-nodaemon"}, error));
    for (const std::string dash : {"", "-"}) {
        BOOST_TEST_CONTEXT("spelled '" << dash << "dbcache'")
        {
            BOOST_CHECK(args.IsArgSet(dash + "dbcache"));
            BOOST_CHECK_EQUAL(args.GetIntArg(dash + "dbcache", 0), 300);
            BOOST_CHECK_EQUAL(args.GetArg(dash + "dbcache").value_or(""), "300");
            BOOST_CHECK((args.GetArgs(dash + "debug") == std::vector<std::string>{"coindb"}));
            BOOST_CHECK(args.IsArgNegated(dash + "daemon"));
            BOOST_CHECK(!args.IsArgSet(dash + "rpcport"));
        }
    }
    // Forced with the dash, read without it, and the other way round.
    args.ForceSetArg("-dbcache", "400");
    BOOST_CHECK_EQUAL(args.GetIntArg("dbcache", 0), 400);
    args.ForceSetArg("dbcache", "500");
    BOOST_CHECK_EQUAL(args.GetIntArg("-dbcache", 0), 500);
}

BOOST_FIXTURE_TEST_CASE(config_file_sections_and_precedence, TempDirFixture)
{
    std::ofstream{m_path / "bitcoin.conf"} << "# comment\n"
                                               "dbcache=100\n"
                                               "rpcport=1111\n"
                                               "regtest.dbbatchsize=5\n"
                                               "nodaemon=1\n"
                                               "unknownkey=3\n"
                                               "[regtest]\n"
                                               "dbcache=200   # trailing comment\n"
                                               "[main]\n"
                                               "dbcache=300\n";
    const std::string datadir_arg = "-datadir=" + m_path.string();
    struct Case {
        const char* network;
        std::vector<const char*> extra;
        std::string dbcache;
        std::string rpcport;
        std::string dbbatchsize;
    };
    const std::vector<Case> cases{
        // network    extra argv          dbcache  rpcport  dbbatchsize
        {"regtest", {},                   "200",   "unset", "5"},
        {"main",    {},                   "300",   "1111",  "unset"},
        {"test",    {},                   "100",   "unset", "unset"},
        {"regtest", {"-dbcache=50"},      "50",    "unset", "5"},
    };
    for (const auto& c : cases) {
        ArgsManager args = MakeArgs();
        std::vector<const char*> argv{datadir_arg.c_str()};
        argv.insert(argv.end(), c.extra.begin(), c.extra.end());
        std::string error;
        BOOST_REQUIRE(Parse(args, argv, error));
        BOOST_REQUIRE_MESSAGE(args.ReadConfigFiles(error), error);
        args.SelectConfigNetwork(c.network);
        BOOST_TEST_CONTEXT("network " << c.network)
        {
            BOOST_CHECK_EQUAL(args.GetArg("dbcache", "unset"), c.dbcache);
            BOOST_CHECK_EQUAL(args.GetArg("rpcport", "unset"), c.rpcport);
            BOOST_CHECK_EQUAL(args.GetArg("dbbatchsize", "unset"), c.dbbatchsize);
            BOOST_CHECK(args.IsArgNegated("daemon"));
            BOOST_CHECK((args.UnknownConfigKeys() == std::vector<std::string>{"unknownkey"}));
        }
    }
}

// Given twice: the command line's last value wins, a conf file's first
// (Bitcoin Core's rule, checked with the reference bitcoind: rpcport=19997
// then rpcport=19998 in [regtest] bound 19997). Lists keep every value.
BOOST_FIXTURE_TEST_CASE(repeated_values_precedence, TempDirFixture)
{
    std::ofstream{m_path / "bitcoin.conf"} << "dbcache=100\n"
                                               "dbcache=200\n"
                                               "debug=coindb\n"
                                               "debug=rpc\n"
                                               "[regtest]\n"
                                               "rpcport=19997\n"
                                               "rpcport=19998\n";
    const std::string datadir_arg = "-datadir=" + m_path.string();
    std::string error;

    ArgsManager from_conf = MakeArgs();
    BOOST_REQUIRE(Parse(from_conf, {datadir_arg.c_str()}, error));
    BOOST_REQUIRE_MESSAGE(from_conf.ReadConfigFiles(error), error);
    from_conf.SelectConfigNetwork("regtest");
    BOOST_CHECK_EQUAL(from_conf.GetArg("dbcache", "unset"), "100");
    BOOST_CHECK_EQUAL(from_conf.GetArg("rpcport", "unset"), "19997");
    BOOST_CHECK((from_conf.GetArgs("debug") == std::vector<std::string>{"coindb", "rpc"}));

    ArgsManager from_command_line = MakeArgs();
    BOOST_REQUIRE(Parse(from_command_line, {datadir_arg.c_str(), "-dbcache=1", "-dbcache=2"}, error));
    BOOST_REQUIRE_MESSAGE(from_command_line.ReadConfigFiles(error), error);
    from_command_line.SelectConfigNetwork("regtest");
    BOOST_CHECK_EQUAL(from_command_line.GetArg("dbcache", "unset"), "2");
}

// includeconf=<file>: read after the main file (so the main file wins a
// conflict), from the chain's section and the top level, relative to the
// datadir; once only; never from the command line.
BOOST_FIXTURE_TEST_CASE(included_config_files, TempDirFixture)
{
    std::ofstream{m_path / "bitcoin.conf"} << "dbcache=100\n"
                                               "includeconf=top.conf\n"
                                               "[regtest]\n"
                                               "includeconf=regtest.conf\n"
                                               "[main]\n"
                                               "includeconf=main-only.conf\n";
    std::ofstream{m_path / "top.conf"} << "dbcache=999\n"
                                          "debug=rpc\n";
    std::ofstream{m_path / "regtest.conf"} << "[regtest]\n"
                                              "dbbatchsize=7\n"
                                              "includeconf=nested.conf\n";
    const std::string datadir_arg = "-datadir=" + m_path.string();
    std::string error;

    ArgsManager args = MakeArgs();
    BOOST_REQUIRE(Parse(args, {datadir_arg.c_str(), "-regtest"}, error));
    // main-only.conf does not exist: only the chosen chain's section counts.
    BOOST_REQUIRE_MESSAGE(args.ReadConfigFiles(error), error);
    args.SelectConfigNetwork("regtest");
    BOOST_CHECK_EQUAL(args.GetArg("dbcache", "unset"), "100");
    BOOST_CHECK((args.GetArgs("debug") == std::vector<std::string>{"rpc"}));
    BOOST_CHECK_EQUAL(args.GetArg("dbbatchsize", "unset"), "7");
    BOOST_CHECK((args.ConfigWarnings() ==
                 std::vector<std::string>{"-includeconf cannot be used from included files; ignoring -includeconf=nested.conf"}));

    // On main, the missing file is an error naming it.
    ArgsManager on_main = MakeArgs();
    BOOST_REQUIRE(Parse(on_main, {datadir_arg.c_str()}, error));
    BOOST_CHECK(!on_main.ReadConfigFiles(error));
    BOOST_CHECK_EQUAL(error, "Failed to include configuration file " + (m_path / "main-only.conf").string());

    ArgsManager command_line = MakeArgs();
    BOOST_CHECK(!Parse(command_line, {"-includeconf=x.conf"}, error));
    BOOST_CHECK_EQUAL(error, "-includeconf cannot be used from commandline; -includeconf=\"x.conf\"");
    BOOST_CHECK(Parse(command_line, {"-noincludeconf"}, error));
}

BOOST_FIXTURE_TEST_CASE(config_file_errors, TempDirFixture)
{
    std::ofstream{m_path / "bad.conf"} << "dbcache\n";
    ArgsManager args = MakeArgs();
    const std::string datadir_arg = "-datadir=" + m_path.string();
    std::string error;
    BOOST_REQUIRE(Parse(args, {datadir_arg.c_str(), "-conf=bad.conf"}, error));
    BOOST_CHECK(!args.ReadConfigFiles(error));
    BOOST_CHECK(error.starts_with("parse error on line 1 of "));

    ArgsManager missing = MakeArgs();
    BOOST_REQUIRE(Parse(missing, {datadir_arg.c_str(), "-conf=nope.conf"}, error));
    BOOST_CHECK(!missing.ReadConfigFiles(error));
    BOOST_CHECK(error.find("could not be opened") != std::string::npos);

    ArgsManager default_missing = MakeArgs();
    BOOST_REQUIRE(Parse(default_missing, {datadir_arg.c_str()}, error));
    BOOST_CHECK(default_missing.ReadConfigFiles(error));
}

BOOST_FIXTURE_TEST_CASE(int_options_refuse_bad_values, TempDirFixture)
{
    const auto make_args = [] {
        ArgsManager args = MakeArgs();
        args.AddPortArg("-rpcport=<port>", "", ArgsManager::NETWORK_ONLY, "o");
        args.AddIntArg("-rpcthreads=<n>", "", ArgsManager::NONE, "o", {.min = 1, .max = 1024, .expected = "", .port = false});
        args.AddIntArg("-dbcache=<n>", "", ArgsManager::NONE, "o", {.min = INT64_MIN, .max = INT64_MAX, .expected = "a size in MiB", .port = false});
        return args;
    };
    const std::string port_error = "Invalid port specified in -rpcport: ";
    const std::string threads_error = "Invalid -rpcthreads value ";
    struct Case {
        std::vector<const char*> argv;
        std::string conf;
        const char* network;
        std::optional<std::string> error;
    };
    const std::vector<Case> cases{
        // argv                                   conf                          network    error
        {{"-rpcport=1"},                          "",                           "regtest", std::nullopt},
        {{"-rpcport=65535"},                      "",                           "regtest", std::nullopt},
        {{"-rpcport=abc"},                        "",                           "regtest", port_error + "'abc'"},
        {{"-rpcport=0"},                          "",                           "regtest", port_error + "'0'"},
        {{"-rpcport=65536"},                      "",                           "regtest", port_error + "'65536'"},
        {{"-rpcport=70000"},                      "",                           "regtest", port_error + "'70000'"},
        {{"-rpcport=-1"},                         "",                           "regtest", port_error + "'-1'"},
        {{"-rpcport=+80"},                        "",                           "regtest", port_error + "'+80'"},
        {{"-rpcport= 80"},                        "",                           "regtest", port_error + "' 80'"},
        {{"-rpcport=80 "},                        "",                           "regtest", port_error + "'80 '"},
        {{"-rpcport=0x50"},                       "",                           "regtest", port_error + "'0x50'"},
        {{"-rpcport=80.0"},                       "",                           "regtest", port_error + "'80.0'"},
        {{"-rpcport=99999999999999999999"},       "",                           "regtest", port_error + "'99999999999999999999'"},
        {{"-rpcport"},                            "",                           "regtest", port_error + "''"},
        {{"-norpcport"},                          "",                           "regtest", port_error + "'0'"},
        // The value in use is checked: the last one given, the command line
        // over the conf file, and a top-level rpcport only on main.
        {{"-rpcport=abc", "-rpcport=80"},         "",                           "regtest", std::nullopt},
        {{"-rpcport=80", "-rpcport=abc"},         "",                           "regtest", port_error + "'abc'"},
        {{},                                      "[regtest]\nrpcport=abc\n",   "regtest", port_error + "'abc'"},
        {{"-rpcport=80"},                         "[regtest]\nrpcport=abc\n",   "regtest", std::nullopt},
        {{},                                      "rpcport=abc\n",              "regtest", std::nullopt},
        {{},                                      "rpcport=abc\n",              "main",    port_error + "'abc'"},
        {{"-rpcthreads=1024"},                    "",                           "regtest", std::nullopt},
        {{"-rpcthreads=0"},                       "",                           "regtest", threads_error + "'0': expected an integer from 1 to 1024"},
        {{"-rpcthreads=1025"},                    "",                           "regtest", threads_error + "'1025': expected an integer from 1 to 1024"},
        {{},                                      "rpcthreads=x\n",             "regtest", threads_error + "'x': expected an integer from 1 to 1024"},
        {{"-dbcache=-5"},                         "",                           "regtest", std::nullopt},
        {{"-dbcache=abc"},                        "",                           "regtest", "Invalid -dbcache value 'abc': expected a size in MiB"},
        // The first bad option by name.
        {{"-rpcthreads=0", "-rpcport=0"},         "",                           "regtest", port_error + "'0'"},
    };
    const std::string datadir_arg = "-datadir=" + m_path.string();
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        BOOST_TEST_CONTEXT("case " << i)
        {
            std::ofstream{m_path / "bitcoin.conf"} << c.conf;
            ArgsManager args = make_args();
            std::vector<const char*> argv{datadir_arg.c_str()};
            argv.insert(argv.end(), c.argv.begin(), c.argv.end());
            std::string error;
            // Only SelectConfigNetwork checks: the values are not final before.
            BOOST_REQUIRE_MESSAGE(Parse(args, argv, error), error);
            BOOST_REQUIRE_MESSAGE(args.ReadConfigFiles(error), error);
            if (c.error) {
                BOOST_CHECK_EXCEPTION(args.SelectConfigNetwork(c.network), std::runtime_error,
                                      [&](const std::runtime_error& e) { return e.what() == *c.error; });
            } else {
                BOOST_CHECK_NO_THROW(args.SelectConfigNetwork(c.network));
            }
            BOOST_CHECK(args.CheckIntArgs() == c.error);
        }
    }
}

BOOST_AUTO_TEST_CASE(chain_selection)
{
    struct Case {
        std::vector<const char*> argv;
        std::optional<std::string> chain;
    };
    const std::vector<Case> cases{
        {{}, "main"},
        {{"-regtest"}, "regtest"},
        {{"-testnet"}, "test"},
        {{"-chain=testnet4"}, "testnet4"},
        {{"-signet", "-chain=signet"}, "signet"},
        {{"-regtest", "-testnet"}, std::nullopt},
        {{"-chain=nonet"}, std::nullopt},
    };
    for (const auto& c : cases) {
        ArgsManager args = MakeArgs();
        std::string error;
        BOOST_REQUIRE(Parse(args, c.argv, error));
        BOOST_CHECK(args.GetChainTypeString(error) == c.chain);
    }
}

BOOST_AUTO_TEST_CASE(help_hides_debug_options_and_lists_ignored_ones)
{
    ArgsManager args = MakeArgs();
    BOOST_CHECK(args.GetHelpMessage(/*show_debug=*/false).find("-dbbatchsize") == std::string::npos);
    BOOST_CHECK(args.GetHelpMessage(/*show_debug=*/true).find("-dbbatchsize=<n>") != std::string::npos);
    std::string error;
    BOOST_REQUIRE(Parse(args, {"-blocksonly=1"}, error));
    const auto ignored = args.IgnoredArgsSet();
    BOOST_REQUIRE_EQUAL(ignored.size(), 1U);
    BOOST_CHECK_EQUAL(ignored[0].first, "blocksonly");
}

BOOST_AUTO_TEST_SUITE_END()
