// ThreadPool (util/threadpool.h):
// - the lifecycle as a table: what Submit answers and what Start throws in
//   each state a sequence of Start, Interrupt and Stop leaves the pool in;
// - random numbers of workers and tasks, every task run exactly once with
//   its result in its own future, single and range submissions mixed;
// - exceptions reach the future; Stop and Interrupt still run what was
//   queued; a task may submit another; ProcessTask runs a task on the
//   calling thread when every worker is busy.
// Tasks that must wait use a gate the test opens, never a sleep.

#include <util/threadpool.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using SubmitError = ThreadPool::SubmitError;

std::string Describe(const util::Expected<std::future<int>, SubmitError>& result)
{
    return result ? "accepted" : std::string{SubmitErrorString(result.error())};
}

// Blocks the tasks that wait on it until the test opens it.
class Gate
{
public:
    void Wait() const { m_open.wait(); }
    void Open() { m_promise.set_value(); }

private:
    std::promise<void> m_promise;
    std::shared_future<void> m_open{m_promise.get_future().share()};
};

bool IsReady(const std::future<int>& future) { return future.wait_for(std::chrono::seconds{0}) == std::future_status::ready; }

} // namespace

BOOST_AUTO_TEST_SUITE(threadpool_tests)

// Each row drives a fresh pool through `steps`, then checks what Submit
// answers, how many workers there are, and whether Start would throw.
BOOST_AUTO_TEST_CASE(lifecycle_table)
{
    enum class Step { START, INTERRUPT, STOP };
    struct Row {
        std::vector<Step> steps;
        const char* submit;
        size_t workers;
        bool start_throws;
    };
    using enum Step;
    // clang-format off
    const std::vector<Row> rows{
        // steps                         Submit               workers  Start throws
        {{},                             "No active workers", 0,       false},
        {{START},                        "accepted",          2,       true},
        {{START, INTERRUPT},             "Interrupted",       2,       true},
        {{START, STOP},                  "No active workers", 0,       false},
        {{START, INTERRUPT, STOP},       "No active workers", 0,       false},
        {{START, STOP, START},           "accepted",          2,       true},
        {{INTERRUPT},                    "No active workers", 0,       true},
        {{INTERRUPT, STOP},              "No active workers", 0,       false},
        {{STOP},                         "No active workers", 0,       false},
        {{START, STOP, STOP},            "No active workers", 0,       false},
    };
    // clang-format on
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row& row = rows[i];
        BOOST_TEST_CONTEXT("row " << i)
        {
            ThreadPool pool{"lifecycle"};
            for (Step step : row.steps) {
                if (step == START) pool.Start(2);
                if (step == INTERRUPT) pool.Interrupt();
                if (step == STOP) pool.Stop();
            }
            auto result = pool.Submit([] { return 7; });
            BOOST_CHECK_EQUAL(Describe(result), row.submit);
            if (result) BOOST_CHECK_EQUAL(result->get(), 7);
            BOOST_CHECK_EQUAL(pool.WorkersCount(), row.workers);
            bool threw = false;
            try {
                pool.Start(1);
            } catch (const std::runtime_error&) {
                threw = true;
            }
            BOOST_CHECK_EQUAL(threw, row.start_throws);
        }
    }
}

BOOST_AUTO_TEST_CASE(start_needs_a_positive_count)
{
    ThreadPool pool{"count"};
    BOOST_CHECK_THROW(pool.Start(0), std::invalid_argument);
    BOOST_CHECK_THROW(pool.Start(-3), std::invalid_argument);
    BOOST_CHECK_EQUAL(pool.WorkersCount(), 0U);
    pool.Start(3);
    BOOST_CHECK_EQUAL(pool.WorkersCount(), 3U);
}

// Random pools and workloads: every task runs once, its future holds its
// own result, whether it came alone or in a range.
BOOST_AUTO_TEST_CASE(every_task_runs_once_randomized)
{
    std::mt19937_64 rng{17};
    for (int round = 0; round < 20; ++round) {
        const int workers = 1 + static_cast<int>(rng() % 8);
        const size_t tasks = rng() % 300;
        BOOST_TEST_CONTEXT("round " << round << ": " << workers << " workers, " << tasks << " tasks")
        {
            std::vector<std::atomic<int>> runs(tasks);
            std::vector<std::future<int>> futures;
            ThreadPool pool{"random"};
            pool.Start(workers);
            for (size_t i = 0; i < tasks;) {
                const size_t batch = std::min<size_t>(tasks - i, 1 + rng() % 20);
                if (rng() % 2) {
                    for (size_t j = i; j < i + batch; ++j) {
                        auto future = pool.Submit([&runs, j] { runs[j].fetch_add(1); return static_cast<int>(j) * 3; });
                        BOOST_REQUIRE(future);
                        futures.push_back(std::move(*future));
                    }
                } else {
                    std::vector<std::function<int()>> fns;
                    for (size_t j = i; j < i + batch; ++j) fns.emplace_back([&runs, j] { runs[j].fetch_add(1); return static_cast<int>(j) * 3; });
                    auto batch_futures = pool.Submit(std::move(fns));
                    BOOST_REQUIRE(batch_futures);
                    BOOST_REQUIRE_EQUAL(batch_futures->size(), batch);
                    for (auto& future : *batch_futures) futures.push_back(std::move(future));
                }
                i += batch;
            }
            for (size_t i = 0; i < tasks; ++i) BOOST_CHECK_EQUAL(futures[i].get(), static_cast<int>(i) * 3);
            for (size_t i = 0; i < tasks; ++i) BOOST_CHECK_EQUAL(runs[i].load(), 1);
            BOOST_CHECK_EQUAL(pool.WorkQueueSize(), 0U);
        }
    }
}

BOOST_AUTO_TEST_CASE(exception_reaches_the_future)
{
    ThreadPool pool{"throw"};
    pool.Start(2);
    auto failing = pool.Submit([]() -> int { throw std::runtime_error{"task failed"}; });
    auto fine = pool.Submit([] { return 1; });
    BOOST_REQUIRE(failing && fine);
    BOOST_CHECK_EXCEPTION(failing->get(), std::runtime_error, [](const std::runtime_error& e) { return std::string{e.what()} == "task failed"; });
    // The worker that ran the failing task keeps working.
    BOOST_CHECK_EQUAL(fine->get(), 1);
    auto after = pool.Submit([] { return 2; });
    BOOST_REQUIRE(after);
    BOOST_CHECK_EQUAL(after->get(), 2);
}

// Stop runs everything queued before it returns, even tasks queued behind
// a worker that is still blocked when Stop is called.
BOOST_AUTO_TEST_CASE(stop_runs_what_was_queued)
{
    ThreadPool pool{"stop"};
    pool.Start(1);
    Gate gate;
    auto blocker = pool.Submit([&gate] { gate.Wait(); return 0; });
    BOOST_REQUIRE(blocker);
    std::vector<std::future<int>> queued;
    for (int i = 0; i < 10; ++i) {
        auto future = pool.Submit([i] { return i; });
        BOOST_REQUIRE(future);
        queued.push_back(std::move(*future));
    }
    // The gate opens from another thread, before or during Stop: Stop
    // must not return before the worker is through it and the queue empty.
    auto opener = std::async(std::launch::async, [&gate] { gate.Open(); });
    pool.Stop();
    opener.get();
    BOOST_CHECK(IsReady(*blocker));
    for (int i = 0; i < 10; ++i) {
        BOOST_REQUIRE(IsReady(queued[i]));
        BOOST_CHECK_EQUAL(queued[i].get(), i);
    }
    BOOST_CHECK_EQUAL(pool.WorkersCount(), 0U);
}

// After Interrupt nothing new is taken, but the workers finish the queue.
BOOST_AUTO_TEST_CASE(interrupt_drains_the_queue)
{
    ThreadPool pool{"interrupt"};
    pool.Start(2);
    Gate gate;
    std::vector<std::future<int>> queued;
    for (int i = 0; i < 6; ++i) {
        auto future = pool.Submit([&gate, i] { gate.Wait(); return i; });
        BOOST_REQUIRE(future);
        queued.push_back(std::move(*future));
    }
    pool.Interrupt();
    BOOST_CHECK_EQUAL(Describe(pool.Submit([] { return 0; })), "Interrupted");
    std::vector<std::function<int()>> batch{[] { return 0; }};
    auto refused = pool.Submit(std::move(batch));
    BOOST_REQUIRE(!refused);
    BOOST_CHECK(refused.error() == SubmitError::Interrupted);
    gate.Open();
    for (int i = 0; i < 6; ++i) BOOST_CHECK_EQUAL(queued[i].get(), i);
    pool.Stop();
}

// A task may submit another task to its own pool, and wait for it while
// another worker runs it.
BOOST_AUTO_TEST_CASE(task_submits_a_task)
{
    ThreadPool pool{"nested"};
    pool.Start(2);
    auto outer = pool.Submit([&pool] {
        auto inner = pool.Submit([] { return 20; });
        return inner ? inner->get() + 1 : -1;
    });
    BOOST_REQUIRE(outer);
    BOOST_CHECK_EQUAL(outer->get(), 21);
}

// With its only worker blocked, a queued task still runs when the caller
// processes it itself.
BOOST_AUTO_TEST_CASE(process_task_on_the_calling_thread)
{
    ThreadPool pool{"process"};
    BOOST_CHECK(!pool.ProcessTask());
    pool.Start(1);
    Gate gate;
    auto blocker = pool.Submit([&gate] { gate.Wait(); return 0; });
    BOOST_REQUIRE(blocker);
    // Wait until the worker has taken the blocker, so that the next task
    // is the only one queued.
    while (pool.WorkQueueSize() != 0) std::this_thread::yield();
    const auto caller = std::this_thread::get_id();
    auto queued = pool.Submit([caller] { return std::this_thread::get_id() == caller ? 1 : 0; });
    BOOST_REQUIRE(queued);
    BOOST_CHECK_EQUAL(pool.WorkQueueSize(), 1U);
    BOOST_CHECK(pool.ProcessTask());
    BOOST_CHECK_EQUAL(queued->get(), 1);
    BOOST_CHECK(!pool.ProcessTask());
    gate.Open();
    BOOST_CHECK_EQUAL(blocker->get(), 0);
}

BOOST_AUTO_TEST_SUITE_END()
