#include <node/snapshot/read_ahead.h>

#include <algorithm>
#include <cassert>
#include <exception>

#include <pthread.h>

SnapshotReadAhead::SnapshotReadAhead(AutoFile& file, const SnapshotMetadata& metadata, int base_height)
    : m_reader{file, metadata, base_height}
{
    m_thread = std::thread{[this] { Run(); }};
}

SnapshotReadAhead::~SnapshotReadAhead()
{
    m_queue.Stop();
    m_thread.join();
}

void SnapshotReadAhead::Run()
{
    pthread_setname_np(pthread_self(), "b-loadsnapshot");
    bool more = true;
    while (more) {
        Chunk chunk = m_queue.Reuse().value_or(Chunk{});
        chunk.coins.resize(CHUNK_COINS);
        // A chunk that starts out of order is so from its first coin.
        chunk.first_unordered = m_hasher.InOrder() ? CHUNK_COINS : 0;
        size_t count = 0;
        size_t script_bytes = 0;
        std::exception_ptr error;
        try {
            for (; count < CHUNK_COINS && script_bytes < CHUNK_SCRIPT_BYTES; ++count) {
                auto& [outpoint, coin] = chunk.coins[count];
                if (!m_reader.Next(outpoint, coin)) {
                    more = false;
                    break;
                }
                script_bytes += coin.DynamicMemoryUsage();
                const bool was_in_order = m_hasher.InOrder();
                m_hasher.Add(outpoint, coin, m_reader.CoinsRead());
                if (was_in_order && !m_hasher.InOrder()) chunk.first_unordered = count;
            }
        } catch (...) {
            // Handed on after the coins read before it.
            error = std::current_exception();
            more = false;
        }
        chunk.coins.resize(count);
        chunk.first_unordered = std::min(chunk.first_unordered, count);
        chunk.coins_read = m_reader.CoinsRead();
        // A consumer that stopped takes nothing more.
        if (count > 0 && !m_queue.Push(std::move(chunk))) return;
        if (error) {
            m_queue.Finish(error);
            return;
        }
    }
    m_queue.Finish();
}

bool SnapshotReadAhead::Next(Chunk& chunk)
{
    if (chunk.coins.capacity() > 0) m_queue.GiveBack(std::move(chunk));
    // Throws what the reader threw, once the coins before it are taken.
    auto next = m_queue.Pop();
    if (!next) {
        m_finished = true;
        return false;
    }
    chunk = std::move(*next);
    return true;
}

std::optional<uint256> SnapshotReadAhead::Hash()
{
    // The reader finished (the queue said so), so the hasher is this thread's.
    assert(m_finished);
    return m_hasher.Hash();
}
