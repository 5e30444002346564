#ifndef COINSDB_NODE_SNAPSHOT_SNAPSHOT_ARGS_H
#define COINSDB_NODE_SNAPSHOT_SNAPSHOT_ARGS_H

// The snapshot options in one place: their help texts
// (RegisterSnapshotOptions) and their readers; a value start-up refuses
// throws InitError with the message the user sees. -snapshotbulkload's
// default is ChainstateManagerOptions'; -snapshotingest, which configures
// the coins database, is coins_view_args.h's.

class ArgsManager;
class CChainParams;

namespace node {

// -assumeutxo and -snapshotbulkload.
void RegisterSnapshotOptions(ArgsManager& args);

// Adds each -assumeutxo entry to params (regtest and signet only).
void ApplyAssumeutxoArgs(const ArgsManager& args, CChainParams& params);

// -snapshotbulkload (ChainstateManagerOptions::snapshot_bulk_load).
bool ReadSnapshotBulkLoadArg(const ArgsManager& args);

} // namespace node

#endif // COINSDB_NODE_SNAPSHOT_SNAPSHOT_ARGS_H
