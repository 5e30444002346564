#include <util/threadpool.h>

#include <fmt/format.h>

#include <cassert>
#include <stdexcept>

#ifdef __linux__
#include <pthread.h>
#endif

namespace {

void NameThisThread(const std::string& name)
{
#ifdef __linux__
    // Linux keeps 15 characters and refuses longer names outright.
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
#else
    (void)name;
#endif
}

} // namespace

ThreadPool::ThreadPool(std::string name) : m_name{std::move(name)} {}

ThreadPool::~ThreadPool() { Stop(); }

void ThreadPool::Start(int num_workers)
{
    if (num_workers <= 0) throw std::invalid_argument("ThreadPool::Start: the number of workers must be positive");
    std::lock_guard lock{m_mutex};
    if (m_interrupted) throw std::runtime_error("Thread pool has been interrupted or is stopping");
    if (!m_workers.empty()) throw std::runtime_error("Thread pool already started");
    m_workers.reserve(num_workers);
    for (int i = 0; i < num_workers; ++i) {
        // The workers wait for m_mutex, held here, before they look at the
        // queue: none runs a task before Start has returned.
        m_workers.emplace_back([this, name = fmt::format("{}.{:02}", m_name, i)] {
            NameThisThread(name);
            WorkerLoop();
        });
    }
}

void ThreadPool::Stop()
{
    std::vector<std::thread> workers;
    {
        std::lock_guard lock{m_mutex};
        for (const auto& worker : m_workers) assert(worker.get_id() != std::this_thread::get_id());
        m_interrupted = true;
        workers.swap(m_workers);
    }
    m_cv.notify_all();
    while (ProcessTask()) {}
    for (auto& worker : workers) worker.join();
    std::lock_guard lock{m_mutex};
    // Submit refused everything from the moment m_interrupted was set, so
    // once the loop above and the workers have emptied the queue, it stays
    // empty.
    assert(m_queue.empty());
    m_interrupted = false;
}

void ThreadPool::Interrupt()
{
    {
        std::lock_guard lock{m_mutex};
        m_interrupted = true;
    }
    m_cv.notify_all();
}

std::optional<ThreadPool::SubmitError> ThreadPool::Refusal() const
{
    if (m_workers.empty()) return SubmitError::Inactive;
    if (m_interrupted) return SubmitError::Interrupted;
    return std::nullopt;
}

bool ThreadPool::ProcessTask()
{
    std::packaged_task<void()> task;
    {
        std::lock_guard lock{m_mutex};
        if (m_queue.empty()) return false;
        task = std::move(m_queue.front());
        m_queue.pop_front();
    }
    task();
    return true;
}

size_t ThreadPool::WorkQueueSize() const
{
    std::lock_guard lock{m_mutex};
    return m_queue.size();
}

size_t ThreadPool::WorkersCount() const
{
    std::lock_guard lock{m_mutex};
    return m_workers.size();
}

void ThreadPool::WorkerLoop()
{
    std::unique_lock lock{m_mutex};
    for (;;) {
        m_cv.wait(lock, [this] { return m_interrupted || !m_queue.empty(); });
        // Interrupted: what is queued still runs, then the worker exits.
        if (m_queue.empty()) return;
        std::packaged_task<void()> task = std::move(m_queue.front());
        m_queue.pop_front();
        lock.unlock();
        task();
        lock.lock();
    }
}

std::string_view SubmitErrorString(ThreadPool::SubmitError error)
{
    switch (error) {
    case ThreadPool::SubmitError::Inactive: return "No active workers";
    case ThreadPool::SubmitError::Interrupted: return "Interrupted";
    }
    return "Unknown error";
}
