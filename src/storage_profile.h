#ifndef COINSDB_STORAGE_PROFILE_H
#define COINSDB_STORAGE_PROFILE_H

// -debugstorage: run a database as if its files were on a slower device,
// so that flush benchmarks on this machine's fast disk can show what the
// published measurements on hard disks and SD cards show. The device is
// one queue: every file of the database waits for it in turn.
//
// | value                         | write  | sync  | read seek |
// |-------------------------------|--------|-------|-----------|
// | hdd                           | HDD_PROFILE below             |
// | sdcard                        | SDCARD_PROFILE below          |
// | <MB/s>,<sync ms>              | as given | as given | 0      |
// | <MB/s>,<sync ms>,<seek ms>    | as given | as given | as given |
// | anything else                 | refused: start-up stops       |
//
// MB are 10^6 bytes, as disk makers count them. Reads move at the write
// rate; a read that does not start where the previous read of the same file
// ended pays the seek delay first, as a disk head would.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

struct StorageProfile {
    std::string name;
    // Bytes per second through the device, reads and writes together.
    double bytes_per_second;
    // What a sync (fsync of a table or the log) costs on top.
    std::chrono::microseconds sync_delay;
    // What a non-sequential read costs before its bytes move.
    std::chrono::microseconds seek_delay;

    // "100 MB/s, sync 12 ms, seek 8 ms".
    std::string Rates() const;
    // "hdd (100 MB/s, sync 12 ms, seek 8 ms)", for the start-up log.
    std::string Describe() const { return name + " (" + Rates() + ")"; }
};

// Calibration: doc/benchmarks.md, "Storage profiles".
extern const StorageProfile HDD_PROFILE;
extern const StorageProfile SDCARD_PROFILE;

// nullopt, with error set, for a value the table above refuses.
std::optional<StorageProfile> ParseStorageProfile(std::string_view value, std::string& error);

#endif // COINSDB_STORAGE_PROFILE_H
