#ifndef COINSDB_NODE_INIT_PROCESS_H
#define COINSDB_NODE_INIT_PROCESS_H

// bitcoind as a Unix process: the signals that ask it to stop, the lock on
// its data directory, its pid file, and detaching as a daemon.

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>

namespace node {

// SIGTERM and SIGINT set flag; SIGPIPE and SIGHUP are ignored.
void InstallSignalHandlers(std::atomic<bool>& flag);

// Holds an exclusive lock on <dir>/.lock for the life of the process.
class DirectoryLock
{
public:
    bool Acquire(const std::filesystem::path& dir, std::string& error);
    ~DirectoryLock();

private:
    int m_fd{-1};
};

// With -daemon the parent waits on this pipe until the child is ready or
// has failed, so scripts can call bitcoin-cli as soon as it returns.
class DaemonPipe
{
public:
    // Forks. Returns true in the child; the parent never returns (it exits
    // with the child's start-up result).
    bool Detach();
    void Report(bool ok, const std::string& error = "");
    bool Active() const { return m_fd >= 0; }

private:
    int m_fd{-1};
};

// <net_dir>/bitcoind.pid (or -pid) from just after the lock until the
// process ends, whether start-up finished or not. -nopid writes none.
class PidFile
{
public:
    // Writes nothing for nullopt (-nopid).
    void Create(const std::optional<std::filesystem::path>& path);
    ~PidFile();

private:
    std::filesystem::path m_path;
};

} // namespace node

#endif // COINSDB_NODE_INIT_PROCESS_H
