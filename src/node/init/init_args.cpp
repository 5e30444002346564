#include <node/init/init_args.h>

#include <util/args.h>

namespace node {

InitOptions ReadInitArgs(const ArgsManager& args, const std::filesystem::path& net_dir)
{
    InitOptions options;
    options.daemon = args.GetBoolArg("daemon", options.daemon) || args.GetBoolArg("daemonwait", options.daemon);
    options.allow_foreign_datadir = args.GetBoolArg("allowforeigndatadir", options.allow_foreign_datadir);
    if (args.IsArgNegated("pid")) {
        options.pid_file.reset();
    } else {
        options.pid_file = AbsPathInDir(net_dir, args.GetArg("pid", options.pid_file->string()));
    }
    options.block_import = ReadBlockImportArgs(args);
    options.block_storage = ReadBlockStorageArgs(args);
    options.rpc_credentials = ReadRpcCredentialArgs(args, net_dir);
    return options;
}

} // namespace node
