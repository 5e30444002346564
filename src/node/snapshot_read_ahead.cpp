#include <node/snapshot_read_ahead.h>

#include <algorithm>
#include <cassert>

#include <pthread.h>

SnapshotReadAhead::SnapshotReadAhead(AutoFile& file, const SnapshotMetadata& metadata, int base_height)
    : m_reader{file, metadata, base_height}
{
    m_thread = std::thread{[this] { Run(); }};
}

SnapshotReadAhead::~SnapshotReadAhead()
{
    {
        std::lock_guard lock{m_mutex};
        m_stop = true;
    }
    m_space_cv.notify_all();
    m_thread.join();
}

void SnapshotReadAhead::Run()
{
    pthread_setname_np(pthread_self(), "b-loadsnapshot");
    bool more = true;
    while (more) {
        Chunk chunk;
        {
            std::unique_lock lock{m_mutex};
            m_space_cv.wait(lock, [&] { return m_stop || m_ready.size() < CHUNKS_AHEAD; });
            if (m_stop) return;
            if (!m_spare.empty()) {
                chunk = std::move(m_spare.back());
                m_spare.pop_back();
            }
        }
        chunk.coins.resize(CHUNK_COINS);
        // A chunk that starts out of order is so from its first coin.
        chunk.first_unordered = m_hasher.InOrder() ? CHUNK_COINS : 0;
        size_t count = 0;
        std::exception_ptr error;
        try {
            for (; count < CHUNK_COINS; ++count) {
                auto& [outpoint, coin] = chunk.coins[count];
                if (!m_reader.Next(outpoint, coin)) {
                    more = false;
                    break;
                }
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
        {
            std::lock_guard lock{m_mutex};
            if (count > 0) m_ready.push_back(std::move(chunk));
            m_error = error;
            m_done = !more;
        }
        m_ready_cv.notify_one();
    }
}

bool SnapshotReadAhead::Next(Chunk& chunk)
{
    std::unique_lock lock{m_mutex};
    if (chunk.coins.capacity() > 0) m_spare.push_back(std::move(chunk));
    m_ready_cv.wait(lock, [&] { return !m_ready.empty() || m_done; });
    if (m_ready.empty()) {
        if (m_error) std::rethrow_exception(m_error);
        return false;
    }
    chunk = std::move(m_ready.front());
    m_ready.pop_front();
    lock.unlock();
    m_space_cv.notify_one();
    return true;
}

std::optional<uint256> SnapshotReadAhead::Hash()
{
    std::lock_guard lock{m_mutex};
    assert(m_done && !m_error);
    return m_hasher.Hash();
}
