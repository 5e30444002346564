#ifndef COINSDB_DBWRAPPER_STORAGE_ENV_H
#define COINSDB_DBWRAPPER_STORAGE_ENV_H

// For dbwrapper.cpp only: the LevelDB environment behind -debugstorage.

#include <storage_profile.h>

#include <memory>

namespace leveldb {
class Env;
}

// Every file `base` opens through the returned environment waits for one
// simulated device with the profile's rate and delays (storage_profile.h).
std::unique_ptr<leveldb::Env> NewThrottledEnv(leveldb::Env* base, const StorageProfile& profile);

#endif // COINSDB_DBWRAPPER_STORAGE_ENV_H
