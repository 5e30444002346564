#ifndef COINSDB_UTIL_THREADPOOL_H
#define COINSDB_UTIL_THREADPOOL_H

// A fixed number of worker threads taking tasks from one queue: Core's
// ThreadPool (util/threadpool.h there), with its names and semantics.
//
// Lifecycle:
//   Start(n)      starts n workers. Throws std::runtime_error when workers
//                 are running already, or after Interrupt() until Stop().
//   Submit(fn)    queues fn and returns its future; refused with
//                 SubmitError::Inactive while no worker runs (never started,
//                 or stopped) and SubmitError::Interrupted after Interrupt().
//   Interrupt()   refuses new tasks; the workers finish what is queued and
//                 exit, without the caller waiting for them.
//   Stop()        refuses new tasks, runs what is queued (the calling thread
//                 helps), joins the workers; Start() may then be called again.
//   ~ThreadPool   stops.
//
// Thread-safety: Submit, ProcessTask, Interrupt, WorkQueueSize and
// WorkersCount may be called from any thread, a task included. Start and
// Stop must not be called from one of this pool's workers (Stop would wait
// for the calling thread to exit).
//
// A task's exception is kept in its future. A task whose future is dropped
// unread loses its exception silently, so such a task must not throw.

#include <util/expected.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

class ThreadPool
{
public:
    enum class SubmitError {
        Inactive,    // no worker runs: never started, or stopped
        Interrupted, // Interrupt() was called and Stop() not yet
    };

    // name: the workers are called <name>.00, <name>.01, ... (as the
    // operating system shows threads, truncated to its 15 characters).
    explicit ThreadPool(std::string name);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    // num_workers must be positive (std::invalid_argument otherwise).
    void Start(int num_workers);
    void Stop();
    void Interrupt();

    template <typename F>
        requires std::invocable<std::decay_t<F>&>
    [[nodiscard]] util::Expected<std::future<std::invoke_result_t<std::decay_t<F>&>>, SubmitError> Submit(F&& fn)
    {
        std::packaged_task<std::invoke_result_t<std::decay_t<F>&>()> task{std::forward<F>(fn)};
        auto future = task.get_future();
        {
            std::lock_guard lock{m_mutex};
            if (auto refused = Refusal()) return util::Unexpected{*refused};
            m_queue.emplace_back(std::move(task));
        }
        m_cv.notify_one();
        return future;
    }

    // Queues every callable of `fns` under one lock and wakes every worker:
    // cheaper than one Submit each for a batch. All are queued or none is.
    // The futures are in the range's order.
    template <std::ranges::sized_range Range>
        requires(!std::is_lvalue_reference_v<Range> && std::invocable<std::ranges::range_value_t<Range>&>)
    [[nodiscard]] util::Expected<std::vector<std::future<std::invoke_result_t<std::ranges::range_value_t<Range>&>>>, SubmitError> Submit(Range&& fns)
    {
        using Result = std::invoke_result_t<std::ranges::range_value_t<Range>&>;
        std::vector<std::packaged_task<Result()>> tasks;
        std::vector<std::future<Result>> futures;
        tasks.reserve(std::ranges::size(fns));
        futures.reserve(std::ranges::size(fns));
        for (auto& fn : fns) {
            futures.push_back(tasks.emplace_back(std::move(fn)).get_future());
        }
        {
            std::lock_guard lock{m_mutex};
            if (auto refused = Refusal()) return util::Unexpected{*refused};
            for (auto& task : tasks) m_queue.emplace_back(std::move(task));
        }
        m_cv.notify_all();
        return futures;
    }

    // Runs the oldest queued task on the calling thread; false when the
    // queue was empty.
    bool ProcessTask();

    size_t WorkQueueSize() const;
    size_t WorkersCount() const;

private:
    // Why Submit must refuse now, if it must. Needs m_mutex.
    std::optional<SubmitError> Refusal() const;
    void WorkerLoop();

    const std::string m_name;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    // Each task's result and exception go to its future, so the queue
    // holds them type-erased.
    std::deque<std::packaged_task<void()>> m_queue;
    std::vector<std::thread> m_workers;
    // Set by Interrupt() and Stop(), cleared once Stop() has joined the
    // workers. Guarded by m_mutex, not an atomic, so that a worker cannot
    // test it just before it is set and then sleep through the wake-up.
    bool m_interrupted{false};
};

// Core's wording of each refusal, for log lines.
std::string_view SubmitErrorString(ThreadPool::SubmitError error);

#endif // COINSDB_UTIL_THREADPOOL_H
