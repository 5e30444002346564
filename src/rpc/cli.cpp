#include <rpc/cli.h>

#include <rpc/auth.h>
#include <rpc/cli_format.h>
#include <rpc/client.h>
#include <rpc/json.h>
#include <rpc/netutil.h>
#include <rpc/protocol.h>
#include <util/args.h>
#include <util/clientversion.h>
#include <util/strencodings.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <thread>

using json = nlohmann::json;

namespace {

constexpr const char* DEFAULT_RPCCONNECT{"127.0.0.1"};
constexpr int DEFAULT_HTTP_CLIENT_TIMEOUT{900};
constexpr int DEFAULT_WAIT_CLIENT_TIMEOUT{0};
constexpr auto RETRY_INTERVAL{std::chrono::seconds{1}};

// The server did not answer at all (or is still warming up): worth another
// try under -rpcwait.
struct ConnectionFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// No password and no cookie: under -rpcwait the node may not have written
// its cookie yet, so this is retried too, but reported without the
// "timeout on transient error" prefix.
struct CredentialsMissing : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ConnectSettings {
    std::string host;
    uint16_t port;
    int timeout_seconds;
    bool wait;
    int wait_timeout_seconds;
};

std::string Usage()
{
    return FormatVersion("RPC client") +
           "\n"
           "Sends one command to a running bitcoind's JSON-RPC server and prints the result.\n"
           "\n"
           "Usage:  bitcoin-cli [options] <command> [params]  Send command to Bitcoin Core\n"
           "or:     bitcoin-cli [options] -named <command> [name=value]...  Send command to Bitcoin Core (with named arguments)\n"
           "or:     bitcoin-cli [options] help                List commands\n"
           "or:     bitcoin-cli [options] help <command>      Get help for a command\n"
           "\n";
}

std::filesystem::path ConfigFilePath(const ArgsManager& args)
{
    std::filesystem::path conf = args.GetArg("conf", "bitcoin.conf");
    return conf.is_relative() ? args.GetDataDirBase() / conf : conf;
}

ConnectSettings ReadConnectSettings(const ArgsManager& args, const CliNetwork& network, std::ostream& err)
{
    ConnectSettings settings{"", network.rpc_port, 0, false, 0};
    const std::string rpcconnect = args.GetArg("rpcconnect", DEFAULT_RPCCONNECT);
    uint16_t rpcconnect_port = 0;
    if (!SplitHostPort(rpcconnect, settings.host, rpcconnect_port)) {
        throw std::runtime_error{"Invalid port provided in -rpcconnect: " + rpcconnect};
    }
    if (rpcconnect_port != 0) settings.port = rpcconnect_port;
    if (const auto rpcport = args.GetArg("rpcport")) {
        const auto value = ParseUInt64(*rpcport);
        if (!value || *value == 0 || *value > 65535) throw std::runtime_error{"Invalid port provided in -rpcport: " + *rpcport};
        settings.port = static_cast<uint16_t>(*value);
        // A port in -rpcconnect too is overridden, but say so.
        if (rpcconnect_port != 0) {
            err << "Warning: Port specified in both -rpcconnect and -rpcport. Using -rpcport " << settings.port << "\n";
        }
    }
    settings.timeout_seconds = static_cast<int>(args.GetIntArg("rpcclienttimeout", DEFAULT_HTTP_CLIENT_TIMEOUT));
    settings.wait = args.GetBoolArg("rpcwait", false);
    settings.wait_timeout_seconds = static_cast<int>(args.GetIntArg("rpcwaittimeout", DEFAULT_WAIT_CLIENT_TIMEOUT));
    return settings;
}

// -rpcuser/-rpcpassword, else the cookie; nullopt when there is neither.
std::optional<std::string> Credentials(const ArgsManager& args, const CliNetwork& network)
{
    const std::string password = args.GetArg("rpcpassword", "");
    if (!password.empty()) return args.GetArg("rpcuser", "") + ":" + password;
    std::filesystem::path cookie = args.GetArg("rpccookiefile", "");
    if (cookie.empty()) cookie = ".cookie";
    if (cookie.is_relative()) cookie = args.GetDataDirBase() / network.data_dir_name / cookie;
    return ReadAuthCookie(cookie);
}

CredentialsMissing NoCredentials(const ArgsManager& args)
{
    return CredentialsMissing{"Could not locate RPC credentials. No authentication cookie could be found, and RPC password is not set.  "
                             "See -rpcpassword and -stdinrpcpass.  Configuration file: (" + ConfigFilePath(args).string() + ")"};
}

// One request and its HTTP-level checks; returns the parsed reply object.
json CallRPC(const ArgsManager& args, const CliNetwork& network, const ConnectSettings& settings, const std::string& method, const json& params)
{
    HTTPPostRequest request;
    request.host = settings.host;
    request.port = settings.port;
    // Without credentials the request still goes out: whether a server
    // answers decides which problem to report (no node running is the
    // likelier one, and the one upstream reports).
    const auto credentials = Credentials(args, network);
    request.credentials = credentials.value_or("");
    request.timeout_seconds = settings.timeout_seconds;
    request.body = "{\"method\":" + WriteJSON(method) + ",\"params\":" + WriteJSON(params) + ",\"id\":1,\"jsonrpc\":\"2.0\"}\n";
    const HTTPPostResponse response = HTTPPost(request);

    if (response.status == 0) {
        const std::string server = settings.host + ":" + std::to_string(settings.port);
        if (response.transport_error == 0) {
            // EVREQ_HTTP_TIMEOUT: connected or not, nothing came back in time.
            // A long call (loadtxoutset) may well still be running.
            throw ConnectionFailed{"Error while attempting to communicate with server " + server + " (timeout)\n\n"
                                   "No reply within -rpcclienttimeout=" + std::to_string(settings.timeout_seconds) +
                                   " seconds: the server may be unreachable, or still running the call; "
                                   "-rpcclienttimeout=0 waits without limit.\nUse \"bitcoin-cli -help\" for more info."};
        }
        throw ConnectionFailed{"Error while attempting to communicate with server " + server + " (Could not connect to the server)"
                               "\n\nMake sure the bitcoind server is running and that you are connecting to the correct RPC port."
                               "\nUse \"bitcoin-cli -help\" for more info."};
    }
    if (!credentials) throw NoCredentials(args);
    if (response.status == HTTP_UNAUTHORIZED) throw std::runtime_error{"Authorization failed: Incorrect rpcuser or rpcpassword"};
    if (response.status == HTTP_SERVICE_UNAVAILABLE) throw std::runtime_error{"Server response: " + response.body};
    // 400, 404 and 500 carry a JSON-RPC error object (JSON-RPC 1.0 style).
    if (response.status >= 400 && response.status != HTTP_BAD_REQUEST && response.status != HTTP_NOT_FOUND &&
        response.status != HTTP_INTERNAL_SERVER_ERROR) {
        throw std::runtime_error{"server returned HTTP error " + std::to_string(response.status)};
    }
    if (response.body.empty()) throw std::runtime_error{"no response from server"};
    auto reply = ParseJSONKeepNumbers(response.body);
    if (!reply) throw std::runtime_error{"couldn't parse reply from server"};
    if (!reply->is_object() || (!reply->contains("result") && !reply->contains("error"))) {
        throw std::runtime_error{"expected reply to have result, error and id properties"};
    }
    return *reply;
}

bool IsWarmupError(const json& reply)
{
    const auto error = reply.find("error");
    if (error == reply.end() || !error->is_object()) return false;
    const auto code = error->find("code");
    return code != error->end() && code->is_number_integer() && *code == RPC_IN_WARMUP;
}

// Retries while the server is unreachable or warming up, under -rpcwait and
// within -rpcwaittimeout (0: no limit).
json CallWithRetry(const ArgsManager& args, const CliNetwork& network, const ConnectSettings& settings, const std::string& method, const json& params)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{settings.wait_timeout_seconds};
    while (true) {
        const bool may_retry = settings.wait && (settings.wait_timeout_seconds <= 0 || std::chrono::steady_clock::now() < deadline);
        try {
            json reply = CallRPC(args, network, settings, method, params);
            if (settings.wait && IsWarmupError(reply)) throw ConnectionFailed{"server in warmup"};
            return reply;
        } catch (const ConnectionFailed& e) {
            // Upstream's prefix says that -rpcwait gave up; without it the
            // failure is reported as it is.
            if (!may_retry) throw std::runtime_error{(settings.wait ? std::string{"timeout on transient error: "} : std::string{}) + e.what()};
        } catch (const CredentialsMissing& e) {
            if (!may_retry) throw std::runtime_error{e.what()};
        }
        std::this_thread::sleep_for(RETRY_INTERVAL);
    }
}

int CommandLineRPC(ArgsManager& args, const CliNetwork& network, std::istream& in, std::ostream& out, std::ostream& err)
{
    std::vector<std::string> positionals = args.Positionals();
    std::string line;
    if (args.GetBoolArg("stdinrpcpass", false)) {
        if (!std::getline(in, line)) throw std::runtime_error{"-stdinrpcpass specified but failed to read from standard input"};
        args.ForceSetArg("rpcpassword", line);
    }
    if (args.GetBoolArg("stdin", false)) {
        while (std::getline(in, line)) positionals.push_back(line);
    }
    if (args.GetBoolArg("getinfo", false)) {
        if (!positionals.empty()) throw std::runtime_error{"-getinfo takes no arguments"};
        const ConnectSettings settings = ReadConnectSettings(args, network, err);
        const json reply = CallWithRetry(args, network, settings, "getblockchaininfo", json::array());
        if (const auto error = reply.find("error"); error != reply.end() && !error->is_null()) {
            const CliOutput output = FormatCliReply(reply);
            err << output.text << "\n";
            return output.exit_code;
        }
        out << FormatGetInfo(reply.value("result", json::object())) << "\n";
        return EXIT_SUCCESS;
    }
    if (positionals.empty()) throw std::runtime_error{"too few parameters (need at least command)"};
    const std::string method = positionals.front();
    const std::vector<std::string> method_args(positionals.begin() + 1, positionals.end());
    const json params = BuildCliParams(method, method_args, args.GetBoolArg("named", false));

    const ConnectSettings settings = ReadConnectSettings(args, network, err);
    const CliOutput output = FormatCliReply(CallWithRetry(args, network, settings, method, params));
    if (!output.text.empty()) (output.to_stderr ? err : out) << output.text << "\n";
    return output.exit_code;
}

bool HelpRequested(const ArgsManager& args)
{
    return args.IsArgSet("?") || args.IsArgSet("h") || args.IsArgSet("help");
}

} // namespace

std::optional<CliNetwork> CliNetworkForChain(const std::string& chain)
{
    if (chain == "main") return CliNetwork{"", 8332};
    if (chain == "test") return CliNetwork{"testnet3", 18332};
    if (chain == "testnet4") return CliNetwork{"testnet4", 48332};
    if (chain == "signet") return CliNetwork{"signet", 38332};
    if (chain == "regtest") return CliNetwork{"regtest", 18443};
    return std::nullopt;
}

void SetupCliArgs(ArgsManager& args)
{
    const std::string options{"Options"};
    args.AddArg("-?", "Print this help message and exit", ArgsManager::NONE, options);
    args.AddArg("-h", "Print this help message and exit", ArgsManager::DEBUG_ONLY, options);
    args.AddArg("-help", "Print this help message and exit", ArgsManager::DEBUG_ONLY, options);
    args.AddArg("-version", "Print version and exit", ArgsManager::NONE, options);
    args.AddArg("-conf=<file>", "Specify configuration file. Relative paths will be prefixed by datadir location. (default: bitcoin.conf)", ArgsManager::NONE, options);
    args.AddArg("-includeconf=<file>", "Specify additional configuration file, relative to the -datadir path (only useable from configuration file, not command line; default: none)", ArgsManager::NONE, options);
    args.AddArg("-datadir=<dir>", "Specify data directory (default: ~/.coinsdb)", ArgsManager::NONE, options);
    args.AddArg("-getinfo", "Get general information from the server: its chain, blocks, headers, verification progress, difficulty and warnings, as Core's -getinfo shows them (coinsdb has no network or wallet part)", ArgsManager::NONE, options);
    args.AddArg("-named", "Pass named instead of positional arguments (default: false)", ArgsManager::NONE, options);
    const ArgsManager::IntForm seconds{.min = 0, .max = INT32_MAX, .expected = "", .port = false};
    args.AddIntArg("-rpcclienttimeout=<n>", "Timeout in seconds during HTTP requests, or 0 for no timeout. (default: " + std::to_string(DEFAULT_HTTP_CLIENT_TIMEOUT) + ")", ArgsManager::NONE, options, seconds);
    args.AddArg("-rpcconnect=<ip>", std::string{"Send commands to node running on <ip> (default: "} + DEFAULT_RPCCONNECT + ")", ArgsManager::NONE, options);
    args.AddArg("-rpccookiefile=<loc>", "Location of the auth cookie. Relative paths will be prefixed by a net-specific datadir location. (default: data dir)", ArgsManager::NONE, options);
    args.AddArg("-rpcpassword=<pw>", "Password for JSON-RPC connections (default: none: the cookie file is used)", ArgsManager::NONE, options);
    // Not AddPortArg: ReadConnectSettings refuses a bad one with upstream
    // bitcoin-cli's own message, which differs from bitcoind's.
    args.AddArg("-rpcport=<port>", "Connect to JSON-RPC on <port> (default: 8332, testnet: 18332, testnet4: 48332, signet: 38332, regtest: 18443)", ArgsManager::NETWORK_ONLY, options);
    args.AddArg("-rpcuser=<user>", "Username for JSON-RPC connections (default: none: the cookie file is used)", ArgsManager::NONE, options);
    args.AddArg("-rpcwait", "Wait for the RPC server to start (default: 0)", ArgsManager::NONE, options);
    args.AddIntArg("-rpcwaittimeout=<n>", "Timeout in seconds to wait for the RPC server to start, or 0 for no timeout. (default: " + std::to_string(DEFAULT_WAIT_CLIENT_TIMEOUT) + ")", ArgsManager::NONE, options, seconds);
    args.AddArg("-stdin", "Read extra arguments from standard input, one per line until EOF/Ctrl-D (recommended for sensitive information such as passphrases). When combined with -stdinrpcpass, the first line from standard input is used for the RPC password. (default: 0)", ArgsManager::NONE, options);
    args.AddArg("-stdinrpcpass", "Read the RPC password from standard input as a single line; with -stdin, the first line is the password (default: 0)", ArgsManager::NONE, options);
    RegisterChainOptions(args);
}

int RunBitcoinCli(int argc, const char* const argv[], std::istream& in, std::ostream& out, std::ostream& err)
{
    ArgsManager args;
    SetupCliArgs(args);
    std::string error;
    if (!args.ParseParameters(argc, argv, error)) {
        err << "Error parsing command line arguments: " << error << "\n";
        return EXIT_FAILURE;
    }
    if (argc < 2 || HelpRequested(args) || args.IsArgSet("version")) {
        std::string text = args.IsArgSet("version") ? FormatVersion("RPC client") : Usage() + args.GetHelpMessage(/*show_debug=*/false);
        if (argc < 2) {
            err << text << "Error: too few parameters\n";
            return EXIT_FAILURE;
        }
        out << text;
        return EXIT_SUCCESS;
    }
    if (const auto datadir = args.GetArg("datadir"); datadir && !datadir->empty() && !std::filesystem::is_directory(args.GetDataDirBase())) {
        err << "Error: Specified data directory \"" << *datadir << "\" does not exist.\n";
        return EXIT_FAILURE;
    }
    if (!args.ReadConfigFiles(error)) {
        err << "Error reading configuration file: " << error << "\n";
        return EXIT_FAILURE;
    }
    const auto chain = args.GetChainTypeString(error);
    const auto network = chain ? CliNetworkForChain(*chain) : std::nullopt;
    if (!network) {
        err << "Error: " << error << "\n";
        return EXIT_FAILURE;
    }
    try {
        // Throws on a bad integer option.
        args.SelectConfigNetwork(*chain);
        return CommandLineRPC(args, *network, in, out, err);
    } catch (const std::exception& e) {
        err << "error: " << e.what() << "\n";
        return EXIT_FAILURE;
    }
}
