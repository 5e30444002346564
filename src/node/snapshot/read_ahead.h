#ifndef COINSDB_NODE_SNAPSHOT_READ_AHEAD_H
#define COINSDB_NODE_SNAPSHOT_READ_AHEAD_H

#include <coins.h>
#include <node/snapshot/utxo_snapshot.h>
#include <uint256.h>
#include <util/read_ahead_queue.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

// Reads and hashes a snapshot's coins on a thread of its own, a few chunks
// ahead of the thread that stores them. Parsing, checking and hashing
// (SnapshotCoinReader, SnapshotHasher) are a fifth of a load's CPU time,
// and the second core is otherwise idle but for LevelDB's table writes.
// The queue is short, so while the storing thread flushes, the reader soon
// waits and leaves that core to LevelDB.
class SnapshotReadAhead
{
public:
    struct Chunk {
        std::vector<std::pair<COutPoint, Coin>> coins;
        // The first coin that came out of chainstate key order, or
        // coins.size(): from there on the set is hashed from disk, and a
        // repeat can be any coin read before.
        size_t first_unordered{0};
        // Coins read up to and including this chunk.
        uint64_t coins_read{0};
    };

    static constexpr size_t CHUNK_COINS = 4096;
    // A chunk also ends once its coins' scripts hold this many heap bytes:
    // 4096 coins of 10,000-byte scripts are 40 MiB, and the queue, the
    // chunk being read and the one being stored would then hold 240 MiB
    // whatever -dbcache says. Ordinary coins (scripts of at most 28 bytes
    // live inside the coin) never reach it, so their chunks are unchanged.
    static constexpr size_t CHUNK_SCRIPT_BYTES = size_t{1} << 20;
    static constexpr size_t CHUNKS_AHEAD = 4;

    SnapshotReadAhead(AutoFile& file, const SnapshotMetadata& metadata, int base_height);
    // Stops the reader, wherever it is.
    ~SnapshotReadAhead();
    SnapshotReadAhead(const SnapshotReadAhead&) = delete;
    SnapshotReadAhead& operator=(const SnapshotReadAhead&) = delete;

    // Replaces chunk with the next one read; its old coins' storage goes
    // back to the reader. False once every coin was handed out. Once the
    // coins before a bad one are handed out, throws what the reader threw.
    bool Next(Chunk& chunk);
    // The coins' hash_serialized_3 if they all came in key order; valid
    // once Next returned false.
    std::optional<uint256> Hash();

private:
    void Run();

    SnapshotCoinReader m_reader;
    SnapshotHasher m_hasher;
    ReadAheadQueue<Chunk> m_queue{CHUNKS_AHEAD};
    // Set once Next returned false: the reader is done with the hasher.
    bool m_finished{false};
    std::thread m_thread;
};

#endif // COINSDB_NODE_SNAPSHOT_READ_AHEAD_H
