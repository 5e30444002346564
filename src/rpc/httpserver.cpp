#include <rpc/httpserver.h>

#include <rpc/auth.h>
#include <rpc/events.h>
#include <rpc/netutil.h>
#include <rpc/protocol.h>
#include <util/log.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace {

constexpr const char* WWW_AUTH_HEADER_DATA{"Basic realm=\"jsonrpc\""};
// Slows down password guessing; spent on a worker, not the event loop.
constexpr auto FAILED_AUTH_DELAY{std::chrono::milliseconds{250}};
// How long Stop() waits for replies to finish writing.
constexpr auto REPLY_FLUSH_TIMEOUT{std::chrono::seconds{5}};
constexpr size_t MAX_HEADERS_SIZE{8192};
constexpr size_t MAX_BODY_SIZE{0x02000000};

// A request on its way from the event loop to a worker.
struct WorkItem {
    evhttp_request* request;
    evhttp_connection* connection;
    std::string body;
    std::optional<std::string> authorization;
    std::string peer;
};

uint16_t LocalPort(evutil_socket_t fd)
{
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return 0;
    if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
    if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
    return 0;
}

// Replies from the event-loop thread with a plain body (or none).
void SendDirect(evhttp_request* request, int status, const std::string& text = "")
{
    evbuffer* body = nullptr;
    if (!text.empty()) {
        body = evbuffer_new();
        evbuffer_add(body, text.data(), text.size());
    }
    evhttp_send_reply(request, status, nullptr, body);
    if (body) evbuffer_free(body);
}

} // namespace

struct HTTPRPCServer::Impl {
    // A worker's answer, carried back to the event loop.
    struct Reply {
        Impl* impl;
        evhttp_request* request;
        evhttp_connection* connection;
        int status;
        std::string body;
        bool ask_for_credentials;
    };

    Options options;
    Handler handler;
    std::vector<AllowedSubnet> allowed;

    event_base* base{nullptr};
    evhttp* http{nullptr};
    std::vector<evhttp_bound_socket*> sockets;
    std::vector<uint16_t> ports;
    std::thread loop_thread;
    std::vector<std::thread> workers;

    std::atomic<bool> interrupted{false};
    bool stopped{false};

    std::mutex mutex;
    std::condition_variable work_cv;
    std::condition_variable idle_cv;
    std::deque<WorkItem> queue;
    // Connections whose request is queued, running or being written; Stop()
    // waits until none is left. Keyed by connection, not request, because a
    // connection that fails mid-reply frees its request without completing
    // it, while the close callback always runs. Reading is paused meanwhile,
    // so a connection has at most one such request.
    std::set<evhttp_connection*> busy;
    uint64_t replies_lost{0};

    ~Impl() { FreeLibevent(); }

    bool Bind(std::string& error);
    void FreeLibevent();
    bool PeerAllowed(const sockaddr* peer) const;
    bool CredentialsValid(const std::string& authorization) const;
    void WorkerLoop();
    Reply Process(WorkItem& item);
    void PostReply(Reply reply);
    // closed: the connection is going away, so a request still in busy
    // never had its reply fully written.
    void Finished(evhttp_connection* connection, bool closed = false);

    static void OnRequest(evhttp_request* request, void* arg);
    static void OnComplete(evhttp_request* request, void* arg);
    static void OnConnectionClose(evhttp_connection* connection, void* arg);
    static void SendReply(evutil_socket_t, short, void* arg);
};

bool HTTPRPCServer::Impl::Bind(std::string& error)
{
    std::string tried;
    for (const std::string& address : options.bind_addresses) {
        std::string host;
        uint16_t port = options.port;
        if (!SplitHostPort(address, host, port)) {
            LogWarning("Invalid RPC bind address {}", address);
            tried += (tried.empty() ? "" : ", ") + address;
            continue;
        }
        const std::string endpoint = (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
        tried += (tried.empty() ? "" : ", ") + endpoint;
        LogDebug(logging::Category::RPC, "Binding RPC on address {} port {}", host, port);
        evhttp_bound_socket* socket = evhttp_bind_socket_with_handle(http, host.c_str(), port);
        if (!socket) {
            LogWarning("Binding RPC on address {} port {} failed.", host, port);
            continue;
        }
        sockets.push_back(socket);
        ports.push_back(LocalPort(evhttp_bound_socket_get_fd(socket)));
    }
    if (sockets.empty()) {
        error = "Unable to bind any endpoint for RPC server (tried " + (tried.empty() ? std::string{"no address"} : tried) + ")";
        return false;
    }
    return true;
}

void HTTPRPCServer::Impl::FreeLibevent()
{
    if (http) evhttp_free(http);
    if (base) event_base_free(base);
    http = nullptr;
    base = nullptr;
    sockets.clear();
}

bool HTTPRPCServer::Impl::PeerAllowed(const sockaddr* peer) const
{
    if (AllowedSubnet::IsLoopback(peer)) return true;
    return std::any_of(allowed.begin(), allowed.end(), [&](const AllowedSubnet& subnet) { return subnet.Contains(peer); });
}

bool HTTPRPCServer::Impl::CredentialsValid(const std::string& authorization) const
{
    constexpr std::string_view PREFIX{"Basic "};
    if (authorization.compare(0, PREFIX.size(), PREFIX) != 0) return false;
    std::string_view encoded{authorization};
    encoded.remove_prefix(PREFIX.size());
    while (!encoded.empty() && (encoded.front() == ' ' || encoded.front() == '\t')) encoded.remove_prefix(1);
    while (!encoded.empty() && (encoded.back() == ' ' || encoded.back() == '\t')) encoded.remove_suffix(1);
    const auto user_pass = DecodeBase64(encoded);
    if (!user_pass) return false;
    // Every entry is compared, so the time does not say which one matched.
    bool valid = false;
    for (const std::string& credentials : options.auth_credentials) valid |= TimingResistantEqual(*user_pass, credentials);
    if (options.check_credentials) valid |= options.check_credentials(*user_pass);
    return valid;
}

void HTTPRPCServer::Impl::OnRequest(evhttp_request* request, void* arg)
{
    Impl& impl = *static_cast<Impl*>(arg);
    evhttp_connection* connection = evhttp_request_get_connection(request);
    const sockaddr* peer = connection ? evhttp_connection_get_addr(connection) : nullptr;
    const std::string peer_text = FormatSockAddr(peer);
    if (!impl.PeerAllowed(peer)) {
        LogDebug(logging::Category::RPC, "HTTP request from {} rejected: Client network is not allowed RPC access", peer_text);
        return SendDirect(request, HTTP_FORBIDDEN);
    }
    if (impl.interrupted) return SendDirect(request, HTTP_SERVICE_UNAVAILABLE);
    const evhttp_uri* uri = evhttp_request_get_evhttp_uri(request);
    const char* path = uri ? evhttp_uri_get_path(uri) : nullptr;
    if (!path || std::string_view{path} != "/") return SendDirect(request, HTTP_NOT_FOUND);
    if (evhttp_request_get_command(request) != EVHTTP_REQ_POST) {
        return SendDirect(request, HTTP_BAD_METHOD, "JSONRPC server handles only POST requests");
    }

    WorkItem item{request, connection, {}, std::nullopt, peer_text};
    evbuffer* input = evhttp_request_get_input_buffer(request);
    item.body.resize(evbuffer_get_length(input));
    evbuffer_copyout(input, item.body.data(), item.body.size());
    if (const char* header = evhttp_find_header(evhttp_request_get_input_headers(request), "Authorization")) {
        item.authorization = header;
    }
    bool queue_full = false;
    {
        // interrupted is checked again under the lock that workers hold when
        // they decide to exit: a request queued after they left would never
        // be answered.
        std::lock_guard lock{impl.mutex};
        if (impl.interrupted) return SendDirect(request, HTTP_SERVICE_UNAVAILABLE);
        queue_full = impl.queue.size() >= static_cast<size_t>(std::max(1, impl.options.work_queue_depth));
        if (!queue_full) {
            impl.queue.push_back(std::move(item));
            impl.busy.insert(connection);
        }
    }
    if (queue_full) {
        LogWarning("Request rejected because http work queue depth exceeded, it can be increased with the -rpcworkqueue= setting");
        return SendDirect(request, HTTP_SERVICE_UNAVAILABLE, "Work queue depth exceeded");
    }
    // While a worker holds the request, stop reading the connection: a
    // client hanging up or the idle timeout must not free it under us.
    // evhttp starts reading again itself once the reply is written. Doing
    // this after the unlock is safe: replies are sent on this thread, so
    // none can overtake these calls.
    if (bufferevent* events = evhttp_connection_get_bufferevent(connection)) bufferevent_disable(events, EV_READ);
    evhttp_request_set_on_complete_cb(request, OnComplete, &impl);
    evhttp_connection_set_closecb(connection, OnConnectionClose, &impl);
    impl.work_cv.notify_one();
}

void HTTPRPCServer::Impl::WorkerLoop()
{
    while (true) {
        WorkItem item;
        {
            std::unique_lock lock{mutex};
            // Queued requests are still answered after Interrupt().
            work_cv.wait(lock, [&] { return !queue.empty() || interrupted; });
            if (queue.empty()) return;
            item = std::move(queue.front());
            queue.pop_front();
        }
        PostReply(Process(item));
    }
}

HTTPRPCServer::Impl::Reply HTTPRPCServer::Impl::Process(WorkItem& item)
{
    Reply reply{this, item.request, item.connection, HTTP_UNAUTHORIZED, "", /*ask_for_credentials=*/true};
    if (!item.authorization) return reply;
    if (!CredentialsValid(*item.authorization)) {
        LogWarning("ThreadRPCServer incorrect password attempt from {}", item.peer);
        std::this_thread::sleep_for(FAILED_AUTH_DELAY);
        return reply;
    }
    reply.ask_for_credentials = false;
    reply.status = HTTP_OK;
    try {
        reply.body = handler(item.body, reply.status);
    } catch (const std::exception& e) {
        LogError("RPC handler threw: {}", e.what());
        reply.status = HTTP_INTERNAL_SERVER_ERROR;
        reply.body.clear();
    }
    return reply;
}

void HTTPRPCServer::Impl::PostReply(Reply reply)
{
    // evhttp is not thread-safe: the event loop sends the reply. With
    // evthread_use_pthreads, event_base_once may be called from any thread
    // and wakes the loop.
    auto* boxed = new Reply{std::move(reply)};
    if (event_base_once(base, -1, EV_TIMEOUT, SendReply, boxed, nullptr) != 0) {
        LogError("Unable to hand an RPC reply to the event loop");
        Finished(boxed->connection);
        delete boxed;
    }
}

void HTTPRPCServer::Impl::SendReply(evutil_socket_t, short, void* arg)
{
    std::unique_ptr<Reply> reply{static_cast<Reply*>(arg)};
    evhttp_request* request = reply->request;
    evkeyvalq* headers = evhttp_request_get_output_headers(request);
    if (reply->ask_for_credentials) evhttp_add_header(headers, "WWW-Authenticate", WWW_AUTH_HEADER_DATA);
    if (!reply->body.empty()) evhttp_add_header(headers, "Content-Type", "application/json");
    SendDirect(request, reply->status, reply->body);
}

void HTTPRPCServer::Impl::OnComplete(evhttp_request* request, void* arg)
{
    static_cast<Impl*>(arg)->Finished(evhttp_request_get_connection(request));
}

void HTTPRPCServer::Impl::OnConnectionClose(evhttp_connection* connection, void* arg)
{
    static_cast<Impl*>(arg)->Finished(connection, /*closed=*/true);
}

void HTTPRPCServer::Impl::Finished(evhttp_connection* connection, bool closed)
{
    std::lock_guard lock{mutex};
    if (busy.erase(connection) && closed) ++replies_lost;
    idle_cv.notify_all();
}

HTTPRPCServer::HTTPRPCServer() : m_impl{std::make_unique<Impl>()} {}

HTTPRPCServer::~HTTPRPCServer() { Stop(); }

bool HTTPRPCServer::Start(const Options& options, Handler handler, std::string& error)
{
    Impl& impl = *m_impl;
    if (impl.base || impl.stopped) {
        error = "RPC server already started";
        return false;
    }
    impl.options = options;
    impl.handler = std::move(handler);
    for (const std::string& text : options.allow_ips) {
        auto subnet = AllowedSubnet::Parse(text);
        if (!subnet) {
            error = "Invalid -rpcallowip subnet specification: " + text +
                    ". Valid values are a single IP (e.g. 1.2.3.4), a network/netmask (e.g. 1.2.3.4/255.255.255.0) or a network/CIDR (e.g. 1.2.3.4/24).";
            return false;
        }
        impl.allowed.push_back(*subnet);
    }

    SetupLibevent();
    impl.base = event_base_new();
    impl.http = impl.base ? evhttp_new(impl.base) : nullptr;
    if (!impl.http) {
        error = "Unable to create the RPC HTTP server";
        impl.FreeLibevent();
        return false;
    }
    evhttp_set_timeout(impl.http, options.server_timeout_seconds);
    evhttp_set_max_headers_size(impl.http, MAX_HEADERS_SIZE);
    evhttp_set_max_body_size(impl.http, MAX_BODY_SIZE);
    // Let every method through to OnRequest, which answers 405 itself.
    evhttp_set_allowed_methods(impl.http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT |
                                              EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
                                              EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
    evhttp_set_gencb(impl.http, Impl::OnRequest, &impl);
    if (!impl.Bind(error)) {
        impl.FreeLibevent();
        return false;
    }

    impl.loop_thread = std::thread{[base = impl.base] { event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY); }};
    for (int i = 0; i < std::max(1, options.worker_threads); ++i) {
        impl.workers.emplace_back([&impl] { impl.WorkerLoop(); });
    }
    // The loopback pair binds one port twice (127.0.0.1 and ::1): name it once.
    std::string ports;
    std::vector<uint16_t> named;
    for (const uint16_t port : impl.ports) {
        if (std::find(named.begin(), named.end(), port) != named.end()) continue;
        named.push_back(port);
        ports += (ports.empty() ? "" : ", ") + std::to_string(port);
    }
    LogInfo("HTTP RPC server started on port(s) {}", ports);
    return true;
}

void HTTPRPCServer::Interrupt()
{
    Impl& impl = *m_impl;
    {
        std::lock_guard lock{impl.mutex};
        impl.interrupted = true;
    }
    impl.work_cv.notify_all();
}

bool HTTPRPCServer::Stop()
{
    Impl& impl = *m_impl;
    if (impl.stopped || !impl.base) return true;
    impl.stopped = true;
    Interrupt();
    for (auto& worker : impl.workers) worker.join();
    impl.workers.clear();
    bool all_sent{true};
    {
        std::unique_lock lock{impl.mutex};
        if (!impl.idle_cv.wait_for(lock, REPLY_FLUSH_TIMEOUT, [&] { return impl.busy.empty(); })) {
            LogWarning("RPC server stopping with {} reply(ies) not fully sent", impl.busy.size());
            all_sent = false;
        }
    }
    // evhttp_free must run on the loop thread, which owns every connection.
    event_base_once(impl.base, -1, EV_TIMEOUT, [](evutil_socket_t, short, void* arg) {
        Impl& impl = *static_cast<Impl*>(arg);
        evhttp_free(impl.http);
        impl.http = nullptr;
        event_base_loopbreak(impl.base);
    }, &impl, nullptr);
    impl.loop_thread.join();
    impl.FreeLibevent();
    LogDebug(logging::Category::RPC, "HTTP RPC server stopped");
    return all_sent;
}

std::vector<uint16_t> HTTPRPCServer::BoundPorts() const { return m_impl->ports; }

uint64_t HTTPRPCServer::RepliesLost() const
{
    std::lock_guard lock{m_impl->mutex};
    return m_impl->replies_lost;
}
