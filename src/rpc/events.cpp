#include <rpc/events.h>

#include <util/log.h>

#include <event2/event.h>
#include <event2/thread.h>

#include <csignal>
#include <mutex>

namespace {

void LogLibeventMessage(int severity, const char* message)
{
    LogDebug(logging::Category::RPC, "libevent: {}", message ? message : "");
}

} // namespace

void SetupLibevent()
{
    static std::once_flag once;
    std::call_once(once, [] {
        evthread_use_pthreads();
        event_set_log_callback(LogLibeventMessage);
        // Writing to a socket the peer has closed raises SIGPIPE, whose
        // default action kills the process: one client hanging up would take
        // the node down. Only the default is replaced, not a handler the
        // program installed itself.
        struct sigaction current{};
        if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) std::signal(SIGPIPE, SIG_IGN);
    });
}
