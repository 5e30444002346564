#include <node/init/init.h>

#include <dbwrapper.h>
#include <kernel/chainparams.h>
#include <node/blockstorage/blockstorage_args.h>
#include <node/blockstorage/obfuscation.h>
#include <node/blockstorage/reindex_check.h>
#include <node/chainstate/caches.h>
#include <node/chainstate/chainstate.h>
#include <node/chainstate/coins_view_args.h>
#include <node/init/args_setup.h>
#include <node/init/context.h>
#include <node/init/datadir_check.h>
#include <node/init/init_args.h>
#include <node/init/logging_args.h>
#include <node/init/process.h>
#include <node/replay/block_processor_args.h>
#include <node/replay/hinted_replay.h>
#include <node/replay/hints_source.h>
#include <node/replay/loadblock_heights.h>
#include <node/rpc/blockchain.h>
#include <node/rpc/server_args.h>
#include <node/snapshot/snapshot_args.h>
#include <rpc/auth.h>
#include <rpc/httpserver.h>
#include <rpc/server.h>
#include <util/args.h>
#include <util/clientversion.h>
#include <util/log.h>
#include <util/strencodings.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

namespace node {
namespace {

// Above this the final flush gets a warning: it can take minutes.
constexpr size_t WARN_FLUSH_COINS_SIZE = size_t{1} << 30;

void LogCacheConfiguration(const kernel::CacheSizes& sizes, const CoinsViewOptions& coins_view, const std::string& batch_size_source)
{
    LogInfo("Cache configuration:");
    LogInfo("* Using {:.1f} MiB for block index database", sizes.block_tree_db * (1.0 / MiB));
    LogInfo("* Using {:.1f} MiB for chain state database", sizes.coins_db * (1.0 / MiB));
    LogInfo("* Using {:.1f} MiB for in-memory UTXO set", sizes.coins * (1.0 / MiB));
    LogInfo("* Using {} bytes ({:.1f} MiB) database write batch size ({})", coins_view.batch_write_bytes,
            coins_view.batch_write_bytes * (1.0 / MiB), batch_size_source);
    LogInfo("* Flushes write {}", coins_view.overlap_batches ? "the next batch while LevelDB takes the one before (two batch buffers)"
                                                            : "one batch at a time: -dbcache is under 8 batches");
}

std::vector<std::string> RpcCredentials(const RpcCredentialOptions& options, std::filesystem::path& cookie_path)
{
    std::vector<std::string> credentials;
    if (!options.password.empty()) {
        credentials.push_back(options.user + ":" + options.password);
        return credentials;
    }
    cookie_path = options.cookie_file;
    std::string cookie;
    if (!GenerateAuthCookie(cookie_path, cookie)) throw InitError("Unable to write the RPC auth cookie " + cookie_path.string());
    credentials.push_back(cookie);
    return credentials;
}

// Opens blocks/ and links the normal chainstate to it. When a snapshot
// chainstate is active only the index is opened, for the RPCs that read
// headers: replaying blocks onto a snapshot chainstate is not supported.
void SetupBlockReplay(NodeContext& node, const InitOptions& init, const std::filesystem::path& net_dir, const CChainParams& params,
                      BlockProcessorOptions options)
{
    std::lock_guard lock{node.chainman->Mutex()};
    Chainstate& active = node.chainman->Active();
    const bool snapshot_active = active.Snapshot().has_value();
    if (snapshot_active && (init.block_import.loadblock_given || init.block_import.reindex_chainstate)) {
        LogWarning("A snapshot chainstate is active: -loadblock, -reindex and -reindex-chainstate are ignored");
    }
    constexpr uint64_t FAST_PRUNE_BLOCKFILE_SIZE = 64 << 10;
    std::string error;
    const auto xor_key = LoadOrCreateXorKey(net_dir / "blocks", init.block_storage.blocks_xor, error);
    if (!xor_key) throw InitError(error);
    node.blockman = std::make_unique<BlockManager>(BlockManager::Options{
        .blocks_dir = net_dir / "blocks",
        .magic = params.MessageStart(),
        .max_blockfile_size = init.block_storage.fast_prune ? FAST_PRUNE_BLOCKFILE_SIZE : MAX_BLOCKFILE_SIZE,
        .index_cache_bytes = node.cache_sizes->block_tree_db,
        .xor_key = *xor_key,
        .wipe_index = init.block_import.reindex && !snapshot_active});
    if (!node.blockman->LoadBlockIndex()) throw InitError("Error loading block database: see debug.log");
    if (snapshot_active) return;
    options.prune_target_bytes = PruneTargetBytes(init.block_storage.prune, init.block_storage.fast_prune);
    if (options.prune_target_bytes) LogInfo("Prune configured to target {} MiB on disk for block and undo files.", options.prune_target_bytes / MiB);
    node.processor = std::make_unique<BlockProcessor>(params, *node.blockman, active, options, node.shutdown_requested,
                                                      node.chainman->Mutex());
    node.processor->LoadChain();
    if (!init.block_import.reindex) node.processor->LoadGenesisBlock();
}

// With -loadblock, the files' block at H must be -swiftsyncblockhash's:
// their headers are read (88 bytes a record, the rest of each block
// skipped; the log line says how long it took) so that hints for another
// chain are refused now, not after replaying every block below H.
void CheckLoadBlockAtHeight(BlockImportOptions& options, const CChainParams& params, int height, const uint256& hash_at_h)
{
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::filesystem::path> files{options.loadblock_files.begin(), options.loadblock_files.end()};
    const LoadBlockHeights found = FindLoadBlockHeights(files, params, height);
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    // The log is not open yet: ImportBlocks writes the line.
    if (found.max_height < height) {
        options.swiftsync_headers_warning = true;
        options.swiftsync_headers_line = fmt::format(
            "SwiftSync: the -loadblock files' {} block headers reach height {} from genesis, below the hints' height {} (read in {} ms); "
            "unless the blocks below are stored already, the hinted replay will end below H and replay again without hints",
            found.headers, found.max_height, height, took.count());
        return;
    }
    if (std::ranges::find(found.at_height, hash_at_h) == found.at_height.end()) {
        std::string hashes;
        for (const uint256& hash : found.at_height) hashes += (hashes.empty() ? "" : " or ") + hash.GetHex();
        throw std::runtime_error(
            fmt::format("-swiftsyncblockhash: the block at height {} in the -loadblock files is {}, not {}", height, hashes, hash_at_h.GetHex()));
    }
    options.swiftsync_headers_line = fmt::format("SwiftSync: the -loadblock files hold block {} at height {} ({} block headers read in {} ms)",
                                                 hash_at_h.GetHex(), height, found.headers, took.count());
}

// -swiftsynchints' arguments and file are refused here, before anything
// is wiped or replayed. A hinted replay's marker left by an earlier run
// means its chainstate may be partial: it is rebuilt as with
// -reindex-chainstate.
void CheckSwiftSyncStart(BlockImportOptions& options, const std::filesystem::path& net_dir, const CChainParams& params)
{
    options.swiftsync_dir = SwiftSyncDir(net_dir);
    options.swiftsync_interrupted = std::filesystem::exists(UnverifiedMarker(options.swiftsync_dir));
    if (options.swiftsync_interrupted) options.reindex_chainstate = true;
    try {
        if (const auto hash_at_h = CheckSwiftSyncArgs(options)) {
            const int height = OpenHintsFile(options.swiftsync_hints)->Height();
            if (!options.loadblock_files.empty()) CheckLoadBlockAtHeight(options, params, height, *hash_at_h);
        }
    } catch (const std::runtime_error& e) {
        throw InitError(e.what());
    }
}

// Upstream's ThreadImport: -reindex or -reindex-chainstate, then each
// -loadblock file.
void ImportBlocks(NodeContext& node, const BlockImportOptions& options)
{
    if (options.reindex) {
        node.processor->ReindexBlockFiles();
        std::lock_guard lock{node.chainman->Mutex()};
        node.processor->LoadGenesisBlock();
    }
    if (options.swiftsync_interrupted) {
        LogWarning("SwiftSync: the last hinted replay stopped before its check at H; its chainstate was discarded and the stored blocks are replayed again");
        std::filesystem::remove_all(options.swiftsync_dir);
    }
    if (options.swiftsync_headers_warning) {
        LogWarning("{}", options.swiftsync_headers_line);
    } else if (!options.swiftsync_headers_line.empty()) {
        LogInfo("{}", options.swiftsync_headers_line);
    }
    if (const auto block_hash_at_h = CheckSwiftSyncArgs(options)) {
        std::lock_guard lock{node.chainman->Mutex()};
        node.processor->StartHintedReplay(OpenHintsFile(options.swiftsync_hints), *block_hash_at_h, options.swiftsync_dir);
    }
    if (options.reindex_chainstate) {
        std::lock_guard lock{node.chainman->Mutex()};
        LogInfo("Reindexing the chainstate from stored blocks...");
        node.processor->ActivateBestChain();
    }
    for (const auto& file : options.loadblock_files) {
        if (node.shutdown_requested) break;
        node.processor->ImportFile(file);
    }
    std::lock_guard lock{node.chainman->Mutex()};
    node.processor->FinishImport();
    const int tip_height = node.processor->ActiveChain().Height();
    LogInfo("Block import finished: tip at height {}", tip_height);
    node.processor->LogPrevoutFetchSummary();
    // A restart that repaired a crashed flush may already stand at the stop
    // height; nothing would be connected to trigger the stop, so check here.
    const int stop_height = node.processor->Options().stop_at_height;
    if (stop_height > 0 && tip_height >= stop_height && !node.shutdown_requested) {
        LogInfo("-stopatheight={} reached: the tip is at height {} after the import; shutting down", stop_height, tip_height);
        node.RequestShutdown();
    }
    if (options.stop_after_block_import && !node.shutdown_requested) {
        LogInfo("Stopping after block import");
        node.RequestShutdown();
    }
}

void WaitForShutdown(NodeContext& node)
{
    std::unique_lock lock{node.shutdown_mutex};
    while (!node.shutdown_requested) {
        // Signals only set the flag, so poll it.
        node.shutdown_cv.wait_for(lock, std::chrono::milliseconds{200});
    }
}

void FinalFlush(NodeContext& node)
{
    if (!node.chainman) return;
    std::lock_guard lock{node.chainman->Mutex()};
    if (node.chainman->WriteFailed()) {
        LogError("Not flushing the chainstate at shutdown: an earlier chainstate write failed");
        return;
    }
    // The index first: the chainstate must never point at unknown blocks.
    if (node.blockman && !node.blockman->WriteIndex()) LogError("Failed to write the block index");
    for (Chainstate* chainstate : node.chainman->All()) {
        const size_t usage = chainstate->CoinsTip().DynamicMemoryUsage();
        if (usage >= WARN_FLUSH_COINS_SIZE) {
            LogWarning("Flushing large ({} GiB) UTXO set to disk, it may take several minutes", usage >> 30);
        }
        chainstate->Flush();
    }
}

// What start-up reads for the chainstates before it opens them.
struct ChainstateSetup {
    CoinsViewOptions coins_view;
    DBOptions chainstate_db;
    bool snapshot_bulk_load;
    BlockProcessorOptions block_processor;
};

// The RPC server and the table it serves, which outlives it.
struct RpcService {
    RPCTable table;
    // Set when the credentials are a cookie file, which shutdown removes.
    std::filesystem::path cookie_path;
    HTTPRPCServer server;
};

// Step 1: the network's directory is this process's, the debug log is open
// and the pid file written.
void LockDataDir(const ArgsManager& args, const InitOptions& options, const std::filesystem::path& net_dir, DirectoryLock& lock,
                 PidFile& pid_file)
{
    std::string error;
    if (!lock.Acquire(net_dir, error)) throw InitError(error);
    // Before the log file is opened, so that a refused -debug value leaves
    // no debug.log behind.
    StartLogging(ReadLogArgs(args, net_dir, options.daemon));
    pid_file.Create(options.pid_file);
}

// Step 2: what runs, where, and what of the configuration it leaves aside.
void LogStartup(const ArgsManager& args, const std::filesystem::path& net_dir, const CChainParams& params, std::string_view allocator)
{
    LogInfo("{} version v{}", CLIENT_NAME, CLIENT_VERSION);
    LogInfo("Memory allocator: {}", allocator.empty() ? "the C library's malloc" : allocator);
    LogInfo("Using data directory {}", net_dir.string());
    LogInfo("Chain: {}", params.GetChainTypeString());
    LogInfo("Scripts and signatures are not verified: coinsdb keeps the UTXO set only");
    for (const auto& [name, why] : args.IgnoredArgsSet()) LogInfo("Option -{} has no effect in coinsdb ({})", name, why);
    for (const auto& key : args.UnknownConfigKeys()) LogWarning("Ignoring unknown configuration value {}", key);
    for (const auto& warning : args.ConfigWarnings()) LogWarning("{}", warning);
}

// Step 3: -assumeutxo entries, the cache sizes and the chainstates'
// options, all checked before anything is served or opened.
ChainstateSetup ReadChainstateSetup(const ArgsManager& args, CChainParams& params, NodeContext& node)
{
    std::string error;
    ApplyAssumeutxoArgs(args, params);
    const auto total_ram = GetTotalRAM();
    node.cache_sizes = CalculateCacheSizes(args, total_ram, error);
    if (!node.cache_sizes) throw InitError(error);
    if (total_ram && ShouldWarnOversizedDbCache(node.cache_sizes->Total(), *total_ram)) {
        const std::string warning = fmt::format("A {} MiB dbcache may be too large for a system memory of only {} MiB.",
                                                node.cache_sizes->Total() / MiB, *total_ram / MiB);
        LogWarning("{}", warning);
        std::cerr << "Warning: " << warning << std::endl;
    }
    ChainstateSetup setup;
    const auto batch_size_source = ReadCoinsViewArgs(args, node.cache_sizes->Total(), setup.coins_view, error);
    if (!batch_size_source) throw InitError(error);
    LogCacheConfiguration(*node.cache_sizes, setup.coins_view, *batch_size_source);
    if (!ReadChainstateDBArgs(args, setup.chainstate_db, error)) throw InitError(error);
    setup.snapshot_bulk_load = ReadSnapshotBulkLoadArg(args);
    if (!ReadBlockProcessorArgs(args, setup.block_processor, error)) throw InitError(error);
    return setup;
}

// Step 4: the RPC server, which answers "Loading chainstate..." until the
// chainstates are loaded.
void StartRpcServer(const ArgsManager& args, const InitOptions& options, const CChainParams& params, NodeContext& node,
                    RpcService& rpc)
{
    rpc.table.SetWarmup(true, "Loading chainstate...");
    RegisterBlockchainRPCCommands(rpc.table, node);
    HTTPRPCServer::Options server_options = RpcServerOptions(args, params);
    server_options.auth_credentials = RpcCredentials(options.rpc_credentials, rpc.cookie_path);
    std::string error;
    const auto handler = [&table = rpc.table](const std::string& body, int& status) { return table.HandleHTTPBody(body, status); };
    if (!rpc.server.Start(server_options, handler, error)) {
        if (!rpc.cookie_path.empty()) DeleteAuthCookie(rpc.cookie_path);
        throw InitError("Unable to start HTTP server. " + error);
    }
}

// Step 5: the chainstates, then the block index and block replay; the RPC
// server leaves its warm-up.
void LoadChainstates(NodeContext& node, const InitOptions& options, const std::filesystem::path& net_dir, const CChainParams& params,
                     const ChainstateSetup& setup, RpcService& rpc)
{
    try {
        node.chainman = std::make_unique<ChainstateManager>(ChainstateManagerOptions{
            params, net_dir, *node.cache_sizes, setup.coins_view, options.block_import.reindex_chainstate,
            /*on_write_failure=*/[&node](const std::string&) { node.AbortNode(); }, setup.chainstate_db, setup.snapshot_bulk_load});
        node.chainman->LoadChainstates();
        SetupBlockReplay(node, options, net_dir, params, setup.block_processor);
    } catch (const dbwrapper_error& e) {
        rpc.server.Stop();
        if (!rpc.cookie_path.empty()) DeleteAuthCookie(rpc.cookie_path);
        throw InitError(std::string{"Error opening coins database: "} + e.what());
    }
    rpc.table.SetWarmup(false, "");
}

// Step 6: -reindex, -reindex-chainstate and the -loadblock files, on a
// thread of their own. Returns whether there is any such block source.
bool StartBlockImport(NodeContext& node, const BlockImportOptions& options, std::thread& import_thread)
{
    const bool have_block_source = node.processor && (!options.loadblock_files.empty() || options.reindex_chainstate);
    if (have_block_source) {
        node.importing = true;
        import_thread = std::thread{[&node, &options] {
            try {
                ImportBlocks(node, options);
            } catch (const std::exception& e) {
                LogError("Block import failed: {}", e.what());
                node.RequestShutdown();
            }
            node.importing = false;
        }};
    }
    return have_block_source;
}

// Without a block source nothing can lift the tip to -stopatheight.
void ShutdownIfStopHeightUnreachable(NodeContext& node, int stop_at_height, bool have_block_source)
{
    if (stop_at_height > 0 && !have_block_source) {
        const int tip = node.chainman->Active().TipHeight();
        if (tip < stop_at_height) {
            LogInfo("-stopatheight={}: the tip is at height {} and coinsdb has no block source to reach it; shutting down", stop_at_height, tip);
            node.RequestShutdown();
        }
    }
}

// Step 7, once a shutdown is requested: no more RPC, the import ends, the
// chainstates are flushed and closed. Returns the exit code.
int Shutdown(NodeContext& node, RpcService& rpc, std::thread& import_thread)
{
    int exit_code = EXIT_SUCCESS;
    LogInfo("Shutdown: In progress...");
    rpc.server.Interrupt();
    rpc.server.Stop();
    if (import_thread.joinable()) import_thread.join();
    try {
        FinalFlush(node);
    } catch (const std::exception& e) {
        LogError("Final flush failed: {}", e.what());
        exit_code = EXIT_FAILURE;
    }
    if (node.fatal_error) exit_code = EXIT_FAILURE;
    node.processor.reset();
    node.blockman.reset();
    node.chainman.reset();
    if (!rpc.cookie_path.empty()) DeleteAuthCookie(rpc.cookie_path);
    LogInfo("Shutdown: done");
    logging::CloseDebugLog();
    return exit_code;
}

// Start-up in the order of its steps, then the wait for a shutdown request.
int RunNode(ArgsManager& args, const InitOptions& options, const std::filesystem::path& net_dir, CChainParams params, DaemonPipe& daemon,
            std::string_view allocator)
{
    NodeContext node;
    node.args = &args;
    InstallSignalHandlers(node.shutdown_requested);

    DirectoryLock lock;
    PidFile pid_file;
    LockDataDir(args, options, net_dir, lock, pid_file);
    LogStartup(args, net_dir, params, allocator);
    const ChainstateSetup setup = ReadChainstateSetup(args, params, node);
    RpcService rpc;
    StartRpcServer(args, options, params, node, rpc);
    LoadChainstates(node, options, net_dir, params, setup, rpc);
    LogInfo("init message: Done loading");
    daemon.Report(true);

    std::thread import_thread;
    const bool have_block_source = StartBlockImport(node, options.block_import, import_thread);
    ShutdownIfStopHeightUnreachable(node, setup.block_processor.stop_at_height, have_block_source);
    WaitForShutdown(node);
    return Shutdown(node, rpc, import_thread);
}

// Runs before anything is written: a refusal leaves no trace, not even a
// debug.log or a lock file.
void CheckDataDirIsOurs(const InitOptions& options, const std::filesystem::path& datadir)
{
    const auto foreign = FindForeignData(datadir);
    if (foreign.empty()) return;
    if (!options.allow_foreign_datadir) throw InitError(ForeignDataDirError(datadir, foreign));
    // The debug log is not open yet; stderr is where Core's init warnings go too.
    std::cerr << "Warning: -allowforeigndatadir: using " << datadir.string() << " although it holds data coinsdb did not create:";
    for (const auto& entry : foreign) std::cerr << ' ' << entry;
    std::cerr << std::endl;
}

// Both reindex options wipe before they rebuild: make sure first that what
// they rebuild from can be read.
void CheckReindexSource(const BlockImportOptions& options, const std::filesystem::path& net_dir, const CChainParams& params)
{
    if (!options.reindex_chainstate) return;
    const auto problem = CheckFirstBlockFile(net_dir / "blocks", params);
    if (!problem) return;
    const char* option = options.reindex ? "-reindex" : "-reindex-chainstate";
    throw InitError(fmt::format("{}: cannot read the block files to rebuild from ({}); nothing was wiped", option, *problem));
}

} // namespace

int AppMain(int argc, char* argv[], std::string_view allocator)
{
    ArgsManager args;
    SetupServerArgs(args);
    std::string error;
    if (!args.ParseParameters(argc, argv, error)) {
        std::cerr << "Error: Error parsing command line arguments: " << error << std::endl;
        return EXIT_FAILURE;
    }
    // -h and -help as upstream, where they are hidden aliases of -?.
    if (args.IsArgSet("?") || args.IsArgSet("h") || args.IsArgSet("help") || args.IsArgSet("help-debug")) {
        std::cout << FormatVersion("daemon") << "\nUsage:  bitcoind [options]\n\n"
                  << args.GetHelpMessage(args.IsArgSet("help-debug"));
        return EXIT_SUCCESS;
    }
    if (args.IsArgSet("version")) {
        std::cout << FormatVersion("daemon");
        return EXIT_SUCCESS;
    }
    if (!args.Positionals().empty()) {
        std::cerr << "Error: Command line contains unexpected token '" << args.Positionals().front()
                  << "', see bitcoind -h for a list of options." << std::endl;
        return EXIT_FAILURE;
    }

    // Only the default datadir is created: a -datadir that does not exist is
    // more likely a typo than a wish for a new, empty node.
    if (const auto dir = args.GetArg("datadir"); dir && !dir->empty() && !std::filesystem::is_directory(args.GetDataDirBase())) {
        std::cerr << "Error: Specified data directory \"" << *dir << "\" does not exist." << std::endl;
        return EXIT_FAILURE;
    }

    DaemonPipe daemon;
    try {
        const auto datadir = args.GetDataDirBase();
        if (!args.ReadConfigFiles(error)) throw InitError("Error reading configuration file: " + error);
        const auto chain_name = args.GetChainTypeString(error);
        if (!chain_name) throw InitError(error);
        args.SelectConfigNetwork(*chain_name);
        CChainParams params = CChainParams::ForChain(*ChainTypeFromString(*chain_name));
        const auto net_dir = datadir / params.DataDirName();
        InitOptions options = ReadInitArgs(args, net_dir);
        CheckSwiftSyncStart(options.block_import, net_dir, params);
        CheckDataDirIsOurs(options, datadir);
        CheckReindexSource(options.block_import, net_dir, params);
        if (std::error_code ec; !std::filesystem::create_directories(net_dir, ec) && ec) {
            throw InitError(fmt::format("Cannot write to data directory '{}'; check permissions.", datadir.string()));
        }
        if (!MarkNewChainDir(net_dir, error)) throw InitError(error);

        if (options.daemon) {
            std::cout << CLIENT_NAME << " starting" << std::endl;
            if (!daemon.Detach()) throw InitError("Failed to daemonize");
        }
        return RunNode(args, options, net_dir, std::move(params), daemon, allocator);
    } catch (const std::exception& e) {
        const std::string message = std::string{"Error: "} + e.what();
        LogError("{}", e.what());
        if (daemon.Active()) {
            daemon.Report(false, message);
        } else {
            std::cerr << message << std::endl;
        }
        return EXIT_FAILURE;
    }
}

} // namespace node
