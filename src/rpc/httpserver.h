#ifndef COINSDB_RPC_HTTPSERVER_H
#define COINSDB_RPC_HTTPSERVER_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

// The HTTP side of the RPC server, on libevent's evhttp (whose types stay in
// httpserver.cpp).
//
// Threads: one event-loop thread owns every libevent object; it accepts
// connections, checks the peer against allow_ips, the path ("/") and the
// method (POST), and queues the request. worker_threads threads take
// requests from the bounded queue, check the Basic credentials and call the
// handler, so one slow call (loadtxoutset) does not hold up the others; each
// worker hands its reply back to the event loop, which alone writes to
// sockets. While a request waits or runs, reading from its connection is
// paused, so neither a client hanging up nor server_timeout_seconds frees a
// request a worker still holds.
//
// Replies: 403 for a peer not allowed, 404 for another path, 405 for another
// method, 401 with "WWW-Authenticate: Basic realm="jsonrpc"" for missing or
// wrong credentials (after a 250 ms pause when they were wrong, to slow down
// guessing), 503 when the queue is full or the server is stopping, else what
// the handler says, with "Content-Type: application/json".
// -rpcworkqueue's default, as upstream.
inline constexpr int DEFAULT_HTTP_WORKQUEUE{64};

class HTTPRPCServer
{
public:
    struct Options {
        // "address", "address:port" or "[v6]:port"; without a port, port.
        std::vector<std::string> bind_addresses{"127.0.0.1", "::1"};
        // 0 lets the kernel choose (tests); see BoundPorts().
        uint16_t port{8332};
        // -rpcallowip values; loopback peers are always allowed.
        std::vector<std::string> allow_ips;
        // Accepted "user:password" pairs (e.g. -rpcuser:-rpcpassword and the
        // cookie). None accepted when empty.
        std::vector<std::string> auth_credentials;
        // Asked about a "user:password" that no auth_credentials entry
        // matched, e.g. to check it against -rpcauth hashes; none when empty.
        std::function<bool(std::string_view user_pass)> check_credentials;
        int worker_threads{4};
        // -rpcworkqueue: requests waiting for a worker before 503s.
        int work_queue_depth{DEFAULT_HTTP_WORKQUEUE};
        // Idle time after which evhttp drops a connection (-rpcservertimeout).
        int server_timeout_seconds{30};
    };
    // Returns the reply body and sets status (an empty body sends none).
    // Runs on worker threads, several at a time.
    using Handler = std::function<std::string(const std::string& body, int& status)>;

    HTTPRPCServer();
    ~HTTPRPCServer();
    HTTPRPCServer(const HTTPRPCServer&) = delete;
    HTTPRPCServer& operator=(const HTTPRPCServer&) = delete;

    // Binds and starts the threads. Returns false with error set when an
    // allow_ips entry is invalid, or when no address could be bound (the
    // error names every address:port tried); binding some but not all
    // addresses only logs a warning. Call once.
    bool Start(const Options& options, Handler handler, std::string& error);
    // New requests get 503 from now on; workers finish the queued ones and
    // exit. Returns at once; safe from any thread, including a handler
    // (the "stop" RPC) and a signal-handling thread.
    void Interrupt();
    // Interrupt(), waits for the workers (so a running handler is finished,
    // not abandoned), flushes the replies still being written (up to a few
    // seconds), then closes every socket and ends the event loop. Must not
    // be called from a handler. Idempotent; the destructor calls it.
    // Returns false when it gave up waiting for a reply to finish writing
    // (the warning in the log says how many), true otherwise.
    bool Stop();

    // The ports actually bound, in bind order (useful with port 0).
    std::vector<uint16_t> BoundPorts() const;
    // Replies whose connection closed before they were fully written: the
    // client hung up, the write failed or the idle timeout fired. Counted so
    // that a test can tell that such a write really happened (a reply that
    // is merely late would not show here).
    uint64_t RepliesLost() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

#endif // COINSDB_RPC_HTTPSERVER_H
