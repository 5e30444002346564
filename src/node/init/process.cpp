#include <node/init/process.h>

#include <node/init/init.h>
#include <util/clientversion.h>

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sys/file.h>
#include <unistd.h>

namespace node {
namespace {

std::atomic<bool>* g_shutdown_flag{nullptr};

void HandleSignal(int)
{
    // Only an atomic store: anything more is not async-signal-safe.
    if (g_shutdown_flag) g_shutdown_flag->store(true);
}

// Creates and removes a probe file. An existing .lock can be opened for
// writing in a read-only directory, so the lock alone does not tell.
bool DirIsWritable(const std::filesystem::path& dir)
{
    const auto probe = dir / fmt::format(".writable.{}", ::getpid());
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return false;
    ::close(fd);
    ::unlink(probe.c_str());
    return true;
}

// Core's SysErrorString: the text and the number, "... (2)".
std::string SysErrorString(int err)
{
    return fmt::format("{} ({})", std::strerror(err), err);
}

} // namespace

void InstallSignalHandlers(std::atomic<bool>& flag)
{
    g_shutdown_flag = &flag;
    struct sigaction action {};
    action.sa_handler = HandleSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGHUP, SIG_IGN);
}

bool DirectoryLock::Acquire(const std::filesystem::path& dir, std::string& error)
{
    // Checked first: "probably already running" would send the user
    // looking for a process that does not exist.
    if (!DirIsWritable(dir)) {
        error = fmt::format("Cannot write to data directory '{}'; check permissions.", dir.string());
        return false;
    }
    const auto path = dir / ".lock";
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
    if (m_fd < 0 || ::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        error = fmt::format("Cannot obtain a lock on directory {}. {} is probably already running.", dir.string(), CLIENT_NAME);
        return false;
    }
    return true;
}

DirectoryLock::~DirectoryLock()
{
    if (m_fd >= 0) ::close(m_fd);
}

bool DaemonPipe::Detach()
{
    int fds[2];
    if (::pipe(fds) != 0) return false;
    const pid_t pid = ::fork();
    if (pid < 0) return false;
    if (pid > 0) {
        ::close(fds[1]);
        std::string message;
        char buffer[512];
        ssize_t n;
        while ((n = ::read(fds[0], buffer, sizeof(buffer))) > 0) message.append(buffer, n);
        if (message.empty() || message[0] != '0') {
            std::cerr << (message.size() > 1 ? message.substr(1) : "Error: bitcoind exited during start-up") << std::endl;
            std::_Exit(EXIT_FAILURE);
        }
        std::_Exit(EXIT_SUCCESS);
    }
    ::close(fds[0]);
    m_fd = fds[1];
    ::setsid();
    return true;
}

void DaemonPipe::Report(bool ok, const std::string& error)
{
    if (m_fd < 0) return;
    const std::string message = (ok ? "0" : "1") + error;
    [[maybe_unused]] auto written = ::write(m_fd, message.data(), message.size());
    ::close(m_fd);
    m_fd = -1;
    if (ok) {
        // Detach from the terminal for good.
        const int null_fd = ::open("/dev/null", O_RDWR);
        if (null_fd >= 0) {
            ::dup2(null_fd, STDIN_FILENO);
            ::dup2(null_fd, STDOUT_FILENO);
            ::dup2(null_fd, STDERR_FILENO);
            ::close(null_fd);
        }
    }
}

void PidFile::Create(const std::optional<std::filesystem::path>& path)
{
    if (!path) return;
    std::FILE* file = std::fopen(path->c_str(), "w");
    if (!file) throw InitError(fmt::format("Unable to create the PID file '{}': {}", path->string(), SysErrorString(errno)));
    const bool written = std::fprintf(file, "%d\n", static_cast<int>(::getpid())) > 0;
    const int close_result = std::fclose(file);
    m_path = *path;
    if (!written || close_result != 0) throw InitError(fmt::format("Unable to create the PID file '{}': {}", path->string(), SysErrorString(errno)));
}

PidFile::~PidFile()
{
    std::error_code ec;
    if (!m_path.empty()) std::filesystem::remove(m_path, ec);
}

} // namespace node
