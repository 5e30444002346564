#include <node/init/args_setup.h>

#include <kernel/caches.h>
#include <node/blockstorage/blockstorage_args.h>
#include <node/chainstate/caches.h>
#include <node/chainstate/coins_view_args.h>
#include <node/init/init_args.h>
#include <node/init/logging_args.h>
#include <node/replay/block_processor_args.h>
#include <node/rpc/server_args.h>
#include <storage_profile.h>
#include <util/args.h>

#include <cstdint>
#include <string>

namespace node {

void SetupServerArgs(ArgsManager& args)
{
    using F = ArgsManager::Flags;
    const std::string opts = "Options";
    args.AddArg("-?", "Print this help message and exit", F::NONE, opts);
    args.AddArg("-h", "Print this help message and exit", F::DEBUG_ONLY, opts);
    args.AddArg("-help", "Print this help message and exit", F::NONE, opts);
    args.AddArg("-help-debug", "Print help including debugging options and exit", F::NONE, opts);
    args.AddArg("-version", "Print version and exit", F::NONE, opts);
    args.AddArg("-conf=<file>", "Specify path to read-only configuration file. Relative paths are prefixed by the datadir location (default: bitcoin.conf)", F::NONE, opts);
    args.AddArg("-includeconf=<file>", "Specify additional configuration file, relative to the -datadir path (only useable from configuration file, not command line; default: none)", F::NONE, opts);
    args.AddArg("-datadir=<dir>", "Specify data directory, which must exist (default: ~/.coinsdb, created if missing)", F::NONE, opts);
    args.AddArg("-allowforeigndatadir", "Start even when the data directory holds data coinsdb did not create: chain data (blocks/, chainstate/) without coinsdb's marker file, or files only Bitcoin Core writes (wallets, settings.json, peers.dat, indexes, ...). coinsdb may then rewrite Core's block index and chainstate, which Core would trust although coinsdb does not verify scripts (default: 0)", F::NONE, opts);
    args.AddArg("-daemon", "Run in the background as a daemon; returns once the node is ready to serve RPC (default: 0)", F::NONE, opts);
    args.AddArg("-daemonwait", "Same as -daemon: coinsdb always waits for initialization before detaching (default: 0)", F::NONE, opts);
    args.AddArg("-pid=<file>", "Specify pid file. Relative paths are prefixed by a net-specific datadir location (default: " + std::string{DEFAULT_PID_FILE} + ")", F::NONE, opts);
    // Negative and tiny values get the minimum, as upstream.
    args.AddIntArg("-dbcache=<n>", "Maximum database cache size <n> MiB (minimum " + std::to_string(MIN_DBCACHE_BYTES / MiB) + ", default: " + std::to_string(GetDefaultDBCache(GetTotalRAM()) / MiB) + "; " + std::to_string(HIGH_DEFAULT_DBCACHE / MiB) + " on a 64-bit machine with at least " + std::to_string(HIGH_DEFAULT_DBCACHE_MIN_TOTAL_RAM >> 30) + " GiB of RAM, else " + std::to_string(DEFAULT_DB_CACHE / MiB) + "). Make sure you have enough RAM: a value above 3/4 of the RAM beyond " + std::to_string(DBCACHE_WARNING_RESERVED_RAM >> 30) + " GiB gets a warning. The in-memory UTXO set gets what the LevelDB caches leave.", F::NONE, opts,
                   {.min = INT64_MIN, .max = INT64_MAX, .expected = "a size in MiB", .port = false});
    RegisterBlockReplayOptions(args);
    RegisterBlockStorageOptions(args);

    const std::string chain = "Chain selection options";
    args.AddArg("-chain=<chain>", "Use the chain <chain> (default: main). Allowed values: main, test, testnet4, signet, regtest", F::NONE, chain);
    args.AddArg("-regtest", "Use the regression test chain, as -chain=regtest does (default: 0)", F::NONE, chain);
    args.AddArg("-testnet", "Use the testnet3 chain, as -chain=test does (default: 0)", F::NONE, chain);
    args.AddArg("-testnet4", "Use the testnet4 chain, as -chain=testnet4 does (default: 0)", F::NONE, chain);
    args.AddArg("-signet", "Use the signet chain, as -chain=signet does (default: 0)", F::NONE, chain);

    const std::string debug = "Debugging/Testing options";
    RegisterLoggingOptions(args);
    args.AddArg("-dbbatchsize=<n|auto>",
                "Maximum database write batch size in bytes, 1 to " + std::to_string(MAX_DB_BATCH_OPTION) + ", or auto: " + std::to_string(DEFAULT_DB_CACHE_BATCH / MiB) +
                    " MiB per whole " + std::to_string(DEFAULT_KERNEL_CACHE / MiB) + " MiB of -dbcache, at least " +
                    std::to_string(MIN_DB_CACHE_BATCH / MiB) + " MiB and at most " + std::to_string(MAX_DB_CACHE_BATCH / MiB) +
                    " MiB (default: " + std::to_string(DEFAULT_DB_CACHE_BATCH) + ")",
                F::DEBUG_ONLY, debug);
    args.AddArg("-debugstorage=<hdd|sdcard|MB/s,sync ms[,seek ms]>", "Make the chainstate databases' files behave as if on a slower device, for flush benchmarks: hdd is " + HDD_PROFILE.Rates() + ", sdcard " + SDCARD_PROFILE.Rates() + "; or give the write rate in MB/s, the delay of a sync and, optionally, of a non-sequential read in ms (default: none)", F::DEBUG_ONLY, debug);
    args.AddArg("-snapshotbulkload", "Write a snapshot load's chainstate without crash markers, which an unfinished load does not need (it is removed), so that LevelDB does not compact the whole set at every flush; 0 writes each flush as Bitcoin Core does, for comparing flush behaviour (default: " + std::to_string(DEFAULT_SNAPSHOT_BULK_LOAD) + ")", F::DEBUG_ONLY, debug);
    args.AddArg("-snapshotingest", "With -snapshotbulkload, hand a bulk load's batches in key order to LevelDB as table files coinsdb builds and installs itself; 0 writes them through LevelDB's own write path and leaves the rest of the bulk load as it is, to tell the two apart (default: 1)", F::DEBUG_ONLY, debug);
    args.AddIntArg("-dbcrashratio=<n>", "Randomly crash while writing a flush, 1 in <n> batches (default: 0)", F::DEBUG_ONLY, debug, ArgsManager::IntForm::NonNegative());
    args.AddArg("-assumeutxo=<height>:<blockhash>:<hash_serialized_3>[:<nchaintx>]", "Trust a UTXO snapshot at this block (regtest and signet only; repeatable). nchaintx, the transactions of the chain up to the block, defaults to height + 1 (default: only the chain's built-in entries)", F::DEBUG_ONLY, debug);

    RegisterRpcServerOptions(args);

    // Subsystems coinsdb does not have: accepted so that published scripts
    // run unchanged, logged once at start-up.
    const char* no_p2p = "no peer-to-peer network";
    for (const char* name : {"-blocksonly", "-connect=<ip>", "-listen", "-port=<port>", "-bind=<addr>", "-addnode=<ip>",
                             "-seednode=<ip>", "-dnsseed", "-discover", "-upnp", "-natpmp", "-maxconnections=<n>",
                             "-onlynet=<net>", "-proxy=<ip:port>", "-listenonion", "-externalip=<ip>", "-maxuploadtarget=<n>"}) {
        args.AddIgnoredArg(name, no_p2p);
    }
    for (const char* name : {"-txindex", "-blockfilterindex=<type>", "-coinstatsindex", "-peerblockfilters"}) {
        args.AddIgnoredArg(name, "no indexes");
    }
    for (const char* name : {"-assumevalid=<hex>", "-blocksdir=<dir>", "-par=<n>",
                             "-checkblocks=<n>", "-checklevel=<n>"}) {
        args.AddIgnoredArg(name, "blocks are replayed for their UTXO changes only");
    }
    for (const char* name : {"-disablewallet", "-wallet=<path>", "-walletdir=<dir>", "-fallbackfee=<amt>"}) {
        args.AddIgnoredArg(name, "no wallet");
    }
    for (const char* name : {"-maxmempool=<n>", "-mempoolexpiry=<n>", "-persistmempool", "-zmqpubrawblock=<address>",
                             "-zmqpubhashblock=<address>", "-rest", "-alertnotify=<cmd>", "-blocknotify=<cmd>",
                             "-startupnotify=<cmd>", "-shutdownnotify=<cmd>", "-checkmempool=<n>",
                             "-checkpoints", "-shrinkdebugfile", "-logips", "-logthreadnames", "-logsourcelocations"}) {
        args.AddIgnoredArg(name, "no mempool, notifications or REST in coinsdb");
    }
}

} // namespace node
