#include <crypto/random.h>

#include <openssl/rand.h>

#include <climits>
#include <stdexcept>

void GetRandBytes(std::span<unsigned char> out)
{
    if (out.size() > INT_MAX || RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) {
        throw std::runtime_error("OpenSSL RAND_bytes failed");
    }
}

uint64_t GetRandUint64()
{
    uint64_t value;
    GetRandBytes(std::span{reinterpret_cast<unsigned char*>(&value), sizeof(value)});
    return value;
}
