#ifndef COINSDB_NODE_REPLAY_HINTS_SOURCE_H
#define COINSDB_NODE_REPLAY_HINTS_SOURCE_H

// -swiftsynchints' file as a HintSource: kernel/swiftsync/hints_file.h
// reads it. The whole file is checked when it is opened (header, every
// object, nothing after the last), so that a malformed file is refused
// before any block is replayed rather than found out halfway.

#include <node/replay/hinted_replay.h>

#include <memory>
#include <string>

namespace node {

// Throws std::runtime_error naming the file and what is wrong with it.
std::unique_ptr<HintSource> OpenHintsFile(const std::string& path);

} // namespace node

#endif // COINSDB_NODE_REPLAY_HINTS_SOURCE_H
