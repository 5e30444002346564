#ifndef COINSDB_UTIL_READ_AHEAD_QUEUE_H
#define COINSDB_UTIL_READ_AHEAD_QUEUE_H

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

// Hands items from one producer thread to one consumer thread, at most
// `capacity` ahead, so a reader can parse the next few items of a file
// while the consumer works on the current one, in bounded memory.
//
// Items the consumer is done with can go back to the producer (GiveBack),
// which may take one to reuse its storage (Reuse) and destroys the others
// on its next Push: what the producer allocated is then freed or reused on
// its thread, and the consumer spends no time on it.
//
// The producer ends with Finish, optionally passing on an exception; the
// consumer sees it after every item pushed before it. A consumer that stops
// early calls Stop, which makes the producer's Push return false at once.
template <typename T>
class ReadAheadQueue
{
public:
    explicit ReadAheadQueue(size_t capacity) : m_capacity{capacity > 0 ? capacity : 1} {}
    ReadAheadQueue(const ReadAheadQueue&) = delete;
    ReadAheadQueue& operator=(const ReadAheadQueue&) = delete;

    // Producer: waits for room, then queues item. False, with item dropped,
    // once the consumer has stopped.
    bool Push(T item)
    {
        std::vector<T> given_back;
        {
            std::unique_lock lock{m_mutex};
            m_space_cv.wait(lock, [&] { return m_stopped || m_ready.size() < m_capacity; });
            if (m_stopped) return false;
            m_ready.push_back(std::move(item));
            given_back.swap(m_given_back);
        }
        m_ready_cv.notify_one();
        // given_back is destroyed here, outside the lock.
        return true;
    }

    // Producer: an item the consumer gave back, to refill instead of
    // making a new one; nullopt when there is none.
    std::optional<T> Reuse()
    {
        std::lock_guard lock{m_mutex};
        if (m_given_back.empty()) return std::nullopt;
        std::optional<T> item{std::move(m_given_back.back())};
        m_given_back.pop_back();
        return item;
    }

    // Producer: nothing more will come; error, if set, is rethrown by Pop
    // once the items before it are taken.
    void Finish(std::exception_ptr error = nullptr)
    {
        std::vector<T> given_back;
        {
            std::lock_guard lock{m_mutex};
            m_finished = true;
            m_error = std::move(error);
            given_back.swap(m_given_back);
        }
        m_ready_cv.notify_one();
    }

    // Consumer: the next item, waiting for it; nullopt once the producer
    // finished and every item was taken (or throws the producer's error).
    std::optional<T> Pop()
    {
        std::unique_lock lock{m_mutex};
        m_ready_cv.wait(lock, [&] { return !m_ready.empty() || m_finished; });
        if (m_ready.empty()) {
            if (m_error) std::rethrow_exception(m_error);
            return std::nullopt;
        }
        std::optional<T> item{std::move(m_ready.front())};
        m_ready.pop_front();
        lock.unlock();
        m_space_cv.notify_one();
        return item;
    }

    // Consumer: an item done with, for the producer to destroy.
    void GiveBack(T item)
    {
        std::lock_guard lock{m_mutex};
        // A finished producer destroys nothing more: item dies here then.
        if (!m_finished) m_given_back.push_back(std::move(item));
    }

    // Consumer: takes no more items; the producer's Push returns false.
    void Stop()
    {
        {
            std::lock_guard lock{m_mutex};
            m_stopped = true;
        }
        m_space_cv.notify_all();
    }

private:
    const size_t m_capacity;
    std::mutex m_mutex;
    std::condition_variable m_ready_cv;
    std::condition_variable m_space_cv;
    std::deque<T> m_ready;
    std::vector<T> m_given_back;
    bool m_finished{false};
    bool m_stopped{false};
    std::exception_ptr m_error;
};

#endif // COINSDB_UTIL_READ_AHEAD_QUEUE_H
