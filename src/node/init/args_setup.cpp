#include <node/init/args_setup.h>

#include <node/blockstorage/blockstorage_args.h>
#include <node/chainstate/caches.h>
#include <node/chainstate/coins_view_args.h>
#include <node/init/init_args.h>
#include <node/init/logging_args.h>
#include <node/replay/block_processor_args.h>
#include <node/rpc/server_args.h>
#include <node/snapshot/snapshot_args.h>
#include <util/args.h>

namespace node {
namespace {

void RegisterIgnoredOptions(ArgsManager& args)
{
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

} // namespace

void SetupServerArgs(ArgsManager& args)
{
    RegisterInitOptions(args);
    RegisterChainOptions(args);
    RegisterLoggingOptions(args);
    RegisterRpcServerOptions(args);
    RegisterCacheOptions(args);
    RegisterCoinsViewOptions(args);
    RegisterSnapshotOptions(args);
    RegisterBlockStorageOptions(args);
    RegisterBlockReplayOptions(args);
    RegisterIgnoredOptions(args);
}

} // namespace node
