// ReadAheadQueue (util/read_ahead_queue.h), one producer and one consumer:
// - random item counts and capacities: every item arrives once, in order,
//   and the producer is never more than `capacity` items ahead;
// - the producer's error arrives after the items pushed before it;
// - Stop releases a producer waiting for room, and later pushes fail;
// - items given back are reused or destroyed on the producer's thread.
// Waiting is on the queue itself, never a sleep.

#include <util/read_ahead_queue.h>

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(read_ahead_queue_tests)

BOOST_AUTO_TEST_CASE(items_arrive_in_order_within_capacity)
{
    std::mt19937_64 rng{0x0ead};
    for (int round = 0; round < 50; ++round) {
        const size_t capacity = 1 + rng() % 6;
        const int items = static_cast<int>(rng() % 300);
        ReadAheadQueue<int> queue{capacity};
        std::atomic<int> pushed{0};
        // Boost.Test's checks are for the test's own thread only.
        std::atomic<bool> refused{false};
        std::thread producer{[&] {
            for (int i = 0; i < items && !refused; ++i) {
                if (queue.Push(i)) {
                    pushed.fetch_add(1);
                } else {
                    refused = true;
                }
            }
            queue.Finish();
        }};
        int popped = 0;
        while (auto item = queue.Pop()) {
            BOOST_CHECK_EQUAL(*item, popped);
            ++popped;
            // Pushed items are the popped ones plus those still queued.
            BOOST_CHECK_LE(pushed.load(), popped + static_cast<int>(capacity));
        }
        producer.join();
        BOOST_CHECK(!refused);
        BOOST_CHECK_EQUAL(popped, items);
        // Finished and empty stays so.
        BOOST_CHECK(!queue.Pop());
    }
}

BOOST_AUTO_TEST_CASE(error_arrives_after_the_items_before_it)
{
    ReadAheadQueue<int> queue{2};
    std::thread producer{[&] {
        queue.Push(1);
        queue.Push(2);
        queue.Finish(std::make_exception_ptr(std::runtime_error{"bad record"}));
    }};
    BOOST_CHECK_EQUAL(queue.Pop().value(), 1);
    BOOST_CHECK_EQUAL(queue.Pop().value(), 2);
    BOOST_CHECK_EXCEPTION(queue.Pop(), std::runtime_error,
                          [](const std::runtime_error& e) { return std::string{e.what()} == "bad record"; });
    producer.join();
}

BOOST_AUTO_TEST_CASE(stop_releases_a_waiting_producer)
{
    ReadAheadQueue<int> queue{1};
    std::atomic<int> refused{-1};
    std::thread producer{[&] {
        int i = 0;
        // The second push waits for room that never comes until Stop.
        while (queue.Push(i)) ++i;
        refused = i;
    }};
    BOOST_CHECK_EQUAL(queue.Pop().value(), 0);
    queue.Stop();
    producer.join();
    // Item 1 or 2 was refused, depending on whether the producer had room
    // for 1 before the stop; none after it is taken.
    BOOST_CHECK(refused == 1 || refused == 2);
    BOOST_CHECK(!queue.Push(99));
}

BOOST_AUTO_TEST_CASE(given_back_items_die_on_the_producer_thread)
{
    // Each item records the thread that destroyed it.
    struct Tracked {
        std::shared_ptr<std::thread::id> died_on;
        ~Tracked()
        {
            if (died_on) *died_on = std::this_thread::get_id();
        }
    };
    ReadAheadQueue<std::unique_ptr<Tracked>> queue{2};
    std::vector<std::shared_ptr<std::thread::id>> deaths;
    for (int i = 0; i < 20; ++i) deaths.push_back(std::make_shared<std::thread::id>());
    std::thread::id producer_id;
    std::thread producer{[&] {
        producer_id = std::this_thread::get_id();
        for (const auto& death : deaths) {
            auto item = std::make_unique<Tracked>();
            item->died_on = death;
            queue.Push(std::move(item));
        }
        queue.Finish();
    }};
    while (auto item = queue.Pop()) queue.GiveBack(std::move(*item));
    producer.join();
    // Every item given back before the producer finished died there; only
    // those given back after it (at most the queued ones and the one in
    // hand) died here.
    int on_producer = 0;
    for (const auto& death : deaths) {
        BOOST_CHECK(*death != std::thread::id{});
        if (*death == producer_id) ++on_producer;
    }
    BOOST_CHECK_GE(on_producer, static_cast<int>(deaths.size()) - 3);
}

BOOST_AUTO_TEST_CASE(the_producer_reuses_what_is_given_back)
{
    // On one thread, step by step: Reuse takes a given-back item (the last
    // one given), Push destroys the rest.
    ReadAheadQueue<std::vector<int>> queue{4};
    BOOST_CHECK(!queue.Reuse());
    BOOST_REQUIRE(queue.Push({1, 2, 3}));
    BOOST_REQUIRE(queue.Push({4}));
    auto first = queue.Pop().value();
    auto second = queue.Pop().value();
    first.clear();
    first.reserve(100);
    queue.GiveBack(std::move(second));
    queue.GiveBack(std::move(first));
    const auto reused = queue.Reuse();
    BOOST_REQUIRE(reused);
    BOOST_CHECK(reused->empty());
    BOOST_CHECK_GE(reused->capacity(), 100u);
    BOOST_REQUIRE(queue.Push({5}));
    // The other given-back item went with that push.
    BOOST_CHECK(!queue.Reuse());
    BOOST_CHECK(queue.Pop().value() == std::vector<int>{5});
}

BOOST_AUTO_TEST_SUITE_END()
